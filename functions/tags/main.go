// Command tags is the Lambda of the tags group: tag writes on members,
// agents and teams.
package main

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/agentplatform/workspaceapi/shared/config"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/tags"
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
	lambda.Start(tags.Function(tags.Deps{Store: dynamo.New(db, cfg.TableName)}))
}
