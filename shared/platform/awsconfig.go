package platform

import (
	"errors"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/smithy-go/logging"
)

// Local stand-ins for the region and credentials against DynamoDB Local,
// when the environment gives none (sam local, the local runner, tests).
const (
	localRegion = "us-east-1"
	localKey    = "local"
)

// AWSConfigFromEnv returns the AWS configuration of a function, built from
// what Lambda puts in its environment: the region (AWS_REGION, else
// AWS_DEFAULT_REGION) and the execution role's credentials
// (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN). It is built
// directly rather than by the SDK's config package, whose default chain
// (shared files, SSO, STS, the sign-in and instance-metadata providers)
// Lambda never needs and every cold start would otherwise pay for: its
// packages' tables are set up at start-up and its clients linked.
//
// It fails with an error naming the variable when the region or the
// credentials are missing: no function ever runs on anonymous credentials.
// With a non-empty endpoint (DynamoDB Local) the region and credentials
// default to local stand-ins instead. It does no I/O.
func AWSConfigFromEnv(endpoint string) (aws.Config, error) {
	region := os.Getenv("AWS_REGION")
	if region == "" {
		region = os.Getenv("AWS_DEFAULT_REGION")
	}
	creds := aws.Credentials{
		AccessKeyID:     os.Getenv("AWS_ACCESS_KEY_ID"),
		SecretAccessKey: os.Getenv("AWS_SECRET_ACCESS_KEY"),
		SessionToken:    os.Getenv("AWS_SESSION_TOKEN"),
		AccountID:       os.Getenv("AWS_ACCOUNT_ID"),
		Source:          credentials.StaticCredentialsName,
	}
	if endpoint != "" {
		if region == "" {
			region = localRegion
		}
		if creds.AccessKeyID == "" {
			creds = aws.Credentials{AccessKeyID: localKey, SecretAccessKey: localKey, Source: credentials.StaticCredentialsName}
		}
	}
	var missing []error
	if region == "" {
		missing = append(missing, errors.New("AWS_REGION is not set"))
	}
	if creds.AccessKeyID == "" {
		missing = append(missing, errors.New("AWS_ACCESS_KEY_ID is not set"))
	}
	if creds.SecretAccessKey == "" {
		missing = append(missing, errors.New("AWS_SECRET_ACCESS_KEY is not set"))
	}
	if err := errors.Join(missing...); err != nil {
		return aws.Config{}, errors.Join(errors.New("AWS configuration: the function's environment lacks what Lambda sets"), err)
	}
	return aws.Config{
		Region:      region,
		Credentials: credentials.StaticCredentialsProvider{Value: creds},
		// As the SDK's default configuration: the SDK's own warnings
		// (a retried checksum, a deprecated setting) go to stderr.
		Logger: logging.NewStandardLogger(os.Stderr),
		RuntimeEnvironment: aws.RuntimeEnvironment{
			EnvironmentIdentifier: aws.ExecutionEnvironmentID(os.Getenv("AWS_EXECUTION_ENV")),
			Region:                region,
		},
	}, nil
}
