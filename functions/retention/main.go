// Command retention is the Lambda fed by the table's stream: it frees the
// seat of an invitation the table's time to live removed while it held one.
package main

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/agentplatform/workspaceapi/shared/config"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/retention"
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
	lambda.Start(retention.New(dynamo.New(db, cfg.TableName), workspace.SystemClock{}))
}
