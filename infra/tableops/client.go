package tableops

import (
	"context"
	"fmt"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/agentplatform/workspaceapi/shared/dynamo"
)

// LoadAWSConfig returns the SDK's default AWS configuration for the local
// tools (profiles, SSO, shared files: whatever an operator's machine has),
// which the functions never link (they build theirs from Lambda's
// environment, platform.AWSConfigFromEnv). With a non-empty endpoint
// (DynamoDB Local) the region and credentials default to local stand-ins
// when the environment gives none. It does no network I/O; it fails only on
// an unreadable AWS configuration.
func LoadAWSConfig(ctx context.Context, endpoint string) (aws.Config, error) {
	var loadOpts []func(*config.LoadOptions) error
	if endpoint != "" {
		if os.Getenv("AWS_REGION") == "" && os.Getenv("AWS_DEFAULT_REGION") == "" {
			loadOpts = append(loadOpts, config.WithRegion("us-east-1"))
		}
		if os.Getenv("AWS_ACCESS_KEY_ID") == "" {
			loadOpts = append(loadOpts, config.WithCredentialsProvider(
				credentials.NewStaticCredentialsProvider("local", "local", "")))
		}
	}
	cfg, err := config.LoadDefaultConfig(ctx, loadOpts...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("load AWS configuration: %w", err)
	}
	return cfg, nil
}

// NewClient is LoadAWSConfig followed by dynamo.ClientFromConfig: the
// service's resilient client, for a tool.
func NewClient(ctx context.Context, endpoint string, optFns ...func(*dynamodb.Options)) (*dynamodb.Client, error) {
	cfg, err := LoadAWSConfig(ctx, endpoint)
	if err != nil {
		return nil, err
	}
	return dynamo.ClientFromConfig(cfg, endpoint, optFns...), nil
}
