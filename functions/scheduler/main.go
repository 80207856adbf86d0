// Command scheduler is the Lambda EventBridge runs at 00:00 UTC daily: it
// resumes the agents and teams a new day or month frees.
package main

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/agentplatform/workspaceapi/shared/config"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/scheduler"
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
	lambda.Start(scheduler.New(dynamo.New(db, cfg.TableName), workspace.SystemClock{}))
}
