// Command chats is the Lambda of GET /workspaceapi/agents/{agentId}/chats/{chatId}:
// one chat with its full, redacted history (more memory than the other groups).
package main

import (
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/agentplatform/workspaceapi/shared/agentdata"
	"github.com/agentplatform/workspaceapi/shared/platform"
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
	lambda.Start(agentdata.WireChats(env))
	return nil
}
