// Command agents is the Lambda of the agents group (GET /workspaceapi/agents).
package main

import (
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/agentplatform/workspaceapi/shared/agents"
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
	lambda.Start(agents.Wire(env))
	return nil
}
