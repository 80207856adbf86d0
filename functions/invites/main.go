// Command invites is the Lambda of the invitations group
// (POST, GET and DELETE /workspaceapi/invites).
package main

import (
	"context"
	"log"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"

	"github.com/agentplatform/workspaceapi/shared/config"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/invites"
	"github.com/agentplatform/workspaceapi/shared/mail"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

func main() {
	config.UseJSONLogs()
	ctx := context.Background()
	cfg, err := config.FromEnv()
	if err != nil {
		log.Fatal(err)
	}
	awsCfg, err := dynamo.LoadAWSConfig(ctx, cfg.DynamoDBEndpoint)
	if err != nil {
		log.Fatal(err)
	}
	db := dynamo.ClientFromConfig(awsCfg, cfg.DynamoDBEndpoint)
	// Without a sender address (sam local, tests) e-mails are logged, not sent.
	var mailer invites.Mailer = &mail.Recorder{}
	if cfg.MailFrom != "" {
		mailer = mail.SES{Client: sesv2.NewFromConfig(awsCfg), From: cfg.MailFrom}
	}
	clock := workspace.SystemClock{}
	lambda.Start(invites.Function(invites.Deps{
		Store: dynamo.New(db, cfg.TableName), Mailer: mailer, Clock: clock,
		IDs: workspace.SortableIDs{Clock: clock}, AcceptURL: cfg.InviteAcceptURL, Retention: cfg.InviteRetention,
	}))
}
