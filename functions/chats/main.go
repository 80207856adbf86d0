// Command chats is the Lambda of GET /workspaceapi/agents/{agentId}/chats/{chatId}:
// one chat with its full, redacted history (more memory than the other groups).
package main

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/agentplatform/workspaceapi/shared/agentdata"
	"github.com/agentplatform/workspaceapi/shared/config"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
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
	lambda.Start(agentdata.ChatFunction(agentdata.ChatDeps{Store: dynamo.New(db, cfg.TableName)}))
}
