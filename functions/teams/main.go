// Command teams is the Lambda of the teams group: list, create, read and
// rename teams, and set or remove team members.
package main

import (
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/agentplatform/workspaceapi/shared/platform"
	"github.com/agentplatform/workspaceapi/shared/teams"
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
	lambda.Start(teams.Wire(env))
	return nil
}
