// Command events is the Lambda fed by the table's stream, filtered to the
// insertions of outbox items: it publishes each limit event to the stack's
// EventBridge bus (docs/limit-events.md).
package main

import (
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/agentplatform/workspaceapi/shared/limitevents"
	"github.com/agentplatform/workspaceapi/shared/platform"
	"github.com/agentplatform/workspaceapi/shared/webhookdelivery"
)

func main() {
	if err := run(); err != nil {
		log.Fatal(err)
	}
}

func run() error {
	env, err := platform.Load()
	if err != nil {
		return err
	}
	lambda.Start(limitevents.Wire(env, limitevents.FromConfig(env.AWS, env.Config.EventBusName),
		webhookdelivery.QueueFromConfig(env.AWS, env.Config.WebhookQueueURL)))
	return nil
}
