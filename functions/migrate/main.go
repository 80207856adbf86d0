// Command migrate is the Lambda that brings the table up to this release's
// layout: CloudFormation invokes it after each deploy of a new release (the
// Migrations custom resource) and its schedule resumes what is not done.
package main

import (
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/agentplatform/workspaceapi/shared/migrate"
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
	lambda.Start(migrate.Wire(env))
	return nil
}
