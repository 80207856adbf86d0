// Command members is the Lambda of the members group: the paged members list.
package main

import (
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/agentplatform/workspaceapi/shared/members"
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
	lambda.Start(members.Wire(env))
	return nil
}
