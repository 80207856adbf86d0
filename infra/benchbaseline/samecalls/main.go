// Command samecalls is the same-calls baseline of `make bench`: a minimal
// aws-lambda-go function that makes the DynamoDB calls its event lists
// (benchbaseline.Event, recorded from a function serving a request) with a
// plain SDK client and does nothing else, built with the functions' flags.
// A function's cold start over this one's is what its own code adds to the
// SDK, the connection and the calls every such function pays.
package main

import (
	"context"
	"log"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/agentplatform/workspaceapi/infra/benchbaseline"
)

func main() {
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		log.Fatal(err)
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
