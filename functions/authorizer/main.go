// Command authorizer is the API-key authorizer Lambda of every route.
package main

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/agentplatform/workspaceapi/shared/authorizer"
	"github.com/agentplatform/workspaceapi/shared/config"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

func main() {
	config.UseJSONLogs()
	cfg, err := config.FromEnv()
	if err != nil {
		log.Fatal(err)
	}
	db, err := dynamo.NewClient(context.Background(), cfg.DynamoDBEndpoint)
	if err != nil {
		log.Fatal(err)
	}
	lambda.Start(authorizer.New(dynamo.New(db, cfg.TableName), workspace.SystemClock{}))
}
