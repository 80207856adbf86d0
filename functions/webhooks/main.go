// Command webhooks is the Lambda of the webhooks group: list, create,
// change, delete, test and rotate the secret of the workspace's webhook
// subscriptions, and read their deliveries logs.
package main

import (
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/agentplatform/workspaceapi/shared/platform"
	"github.com/agentplatform/workspaceapi/shared/webhookdelivery"
	"github.com/agentplatform/workspaceapi/shared/webhooks"
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
	lambda.Start(webhooks.Wire(env, webhookdelivery.QueueFromConfig(env.AWS, env.Config.WebhookQueueURL)))
	return nil
}
