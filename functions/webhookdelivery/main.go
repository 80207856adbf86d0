// Command webhookdelivery is the Lambda of webhook deliveries: fed by the
// delivery queue, it POSTs each event to its subscription, signed, and
// retries or disables on failure.
package main

import (
	"log"

	"github.com/aws/aws-lambda-go/lambda"

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
	lambda.Start(webhookdelivery.Wire(env, webhookdelivery.QueueFromConfig(env.AWS, env.Config.WebhookQueueURL)))
	return nil
}
