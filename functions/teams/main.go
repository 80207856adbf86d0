// Command teams is the Lambda of the teams group: list, create, read and
// rename teams, and set or remove team members.
package main

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/agentplatform/workspaceapi/shared/config"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/teams"
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
	clock := workspace.SystemClock{}
	lambda.Start(teams.Function(teams.Deps{Store: dynamo.New(db, cfg.TableName), Clock: clock, IDs: workspace.SortableIDs{Clock: clock}}))
}
