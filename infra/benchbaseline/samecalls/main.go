// Command samecalls is the same-calls baseline of `make bench`: a minimal
// aws-lambda-go function that makes the DynamoDB calls its event lists
// (benchbaseline.Event, recorded from a function serving a request) with a
// plain SDK client and does nothing else, built with the functions' flags.
// A function's cold start over this one's is what its own code adds to the
// SDK, the connection and the calls every such function pays.
//
// Like the functions (shared/platform.AWSConfigFromEnv), it builds its AWS
// configuration from Lambda's environment, not with the SDK's config
// package, so both pay the same start-up.
package main

import (
	"context"
	"log"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/agentplatform/workspaceapi/infra/benchbaseline"
)

func main() {
	region, key, secret := os.Getenv("AWS_REGION"), os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY")
	if region == "" || key == "" || secret == "" {
		log.Fatal("samecalls: AWS_REGION, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set")
	}
	cfg := aws.Config{
		Region:      region,
		Credentials: credentials.NewStaticCredentialsProvider(key, secret, os.Getenv("AWS_SESSION_TOKEN")),
	}
	client := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		if ep := os.Getenv("DYNAMODB_ENDPOINT"); ep != "" {
			// As the functions' client does against DynamoDB Local
			// (shared/dynamo.ClientFromConfig), so both do the same work.
			o.BaseEndpoint = aws.String(ep)
			o.DisableValidateResponseChecksum = true
		}
	})
	lambda.Start(func(ctx context.Context, ev benchbaseline.Event) (benchbaseline.Result, error) {
		return benchbaseline.Replay(ctx, client, ev.Calls)
	})
}
