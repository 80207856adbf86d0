// Command tags is the Lambda of the tags group: tag writes on members,
// agents and teams.
package main

import (
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/agentplatform/workspaceapi/shared/platform"
	"github.com/agentplatform/workspaceapi/shared/tags"
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
	lambda.Start(tags.Wire(env))
	return nil
}
