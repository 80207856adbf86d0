// Command ingest is the Lambda fed by the ingest queue: it applies the
// platform's events (usage, chats, diary entries, key-metric records).
package main

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/agentplatform/workspaceapi/shared/config"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/ingest"
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
	store, clock := dynamo.New(db, cfg.TableName), workspace.SystemClock{}
	lambda.Start(ingest.New(store, ingest.StoredAgentData{Store: store, Clock: clock}, clock))
}
