// Command keys is the Lambda of the API keys group: list, create, change
// and revoke the workspace's API keys.
package main

import (
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/agentplatform/workspaceapi/shared/keys"
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
	lambda.Start(keys.Wire(env))
	return nil
}
