// Package stack wires every function of template.yaml for in-process use: the
// local runner and the integration tests invoke the same handlers that each
// function's main starts in Lambda.
package stack

import (
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/agentplatform/workspaceapi/shared/authorizer"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/invites"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Deps are what the functions share.
type Deps struct {
	Store     *dynamo.Store
	Mailer    invites.Mailer
	Clock     workspace.Clock
	IDs       workspace.IDGenerator
	AcceptURL string
}

// Functions returns the Lambda handler of every function of template.yaml, by
// logical id.
func Functions(d Deps) map[string]lambda.Handler {
	return map[string]lambda.Handler{
		"AuthorizerFunction": lambda.NewHandler(authorizer.New(d.Store, d.Clock)),
		"InvitesFunction": lambda.NewHandler(invites.Function(invites.Deps{
			Store: d.Store, Mailer: d.Mailer, Clock: d.Clock, IDs: d.IDs, AcceptURL: d.AcceptURL,
		})),
	}
}
