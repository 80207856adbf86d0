// Command credits is the Lambda of the credits group: agent credit limits,
// daily-usage resets, team credit limits, the credits report and agent usage.
package main

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/agentplatform/workspaceapi/shared/config"
	"github.com/agentplatform/workspaceapi/shared/credits"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

func main() {
	config.UseJSONLogs()
	ctx := context.Background()
	cfg, err := config.FromEnv()
	if err != nil {
		log.Fatal(err)
	}
	db, err := dynamo.NewClient(ctx, cfg.DynamoDBEndpoint)
	if err != nil {
		log.Fatal(err)
	}
	lambda.Start(credits.Function(credits.Deps{Store: dynamo.New(db, cfg.TableName), Clock: workspace.SystemClock{}}))
}
