// Command invites is the Lambda of the invitations group
// (POST, GET and DELETE /workspaceapi/invites).
package main

import (
	"log"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/agentplatform/workspaceapi/shared/invites"
	"github.com/agentplatform/workspaceapi/shared/mail"
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
	lambda.Start(invites.Wire(env, mail.FromConfig(env.AWS, env.Config.MailFrom)))
	return nil
}
