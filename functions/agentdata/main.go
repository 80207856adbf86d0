// Command agentdata is the Lambda of the agent-data group: the agent resource,
// key metrics, connected agents, the diary and promotion requests.
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
	lambda.Start(agentdata.Wire(env))
	return nil
}
