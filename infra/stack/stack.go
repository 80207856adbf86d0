// Package stack wires every function of template.yaml for in-process use: the
// local runner and the integration tests invoke the same handlers that each
// function's main starts in Lambda.
package stack

import (
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/agentplatform/workspaceapi/infra/localgw"
	"github.com/agentplatform/workspaceapi/shared/agentdata"
	"github.com/agentplatform/workspaceapi/shared/agents"
	"github.com/agentplatform/workspaceapi/shared/authorizer"
	"github.com/agentplatform/workspaceapi/shared/credits"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/ingest"
	"github.com/agentplatform/workspaceapi/shared/invites"
	"github.com/agentplatform/workspaceapi/shared/members"
	"github.com/agentplatform/workspaceapi/shared/retention"
	"github.com/agentplatform/workspaceapi/shared/scheduler"
	"github.com/agentplatform/workspaceapi/shared/tags"
	"github.com/agentplatform/workspaceapi/shared/teams"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Deps are what the functions share.
type Deps struct {
	Store *dynamo.Store
	// AuthorizerStore, when set, is the authorizer's store (tests count its
	// round trips apart); nil means Store.
	AuthorizerStore *dynamo.Store
	Mailer          invites.Mailer
	Clock           workspace.Clock
	IDs             workspace.IDGenerator
	AcceptURL       string
	// AgentData stores the ingest function's chats, diary entries and metric
	// records; nil means ingest.StoredAgentData over Store, as the function's
	// main uses.
	AgentData ingest.AgentData
	// StoreFor, when set, gives each function (by logical id) a store of its
	// own, so tests can record or fault each function's calls apart; it
	// takes precedence over Store and AuthorizerStore.
	StoreFor func(functionID string) *dynamo.Store
}

// store is the store of the function with logical id fn.
func (d Deps) store(fn string) *dynamo.Store {
	switch {
	case d.StoreFor != nil:
		return d.StoreFor(fn)
	case fn == "AuthorizerFunction" && d.AuthorizerStore != nil:
		return d.AuthorizerStore
	}
	return d.Store
}

// agentData is d.AgentData, or the one the ingest function's main uses.
func (d Deps) agentData() ingest.AgentData {
	if d.AgentData == nil {
		return ingest.StoredAgentData{Store: d.store("IngestFunction"), Clock: d.Clock}
	}
	return d.AgentData
}

// EventApplier returns what the fixture loader applies a fixture's events
// with: the ingest function's code path over d's store, agent data and clock.
func EventApplier(d Deps) ingest.Applier {
	return ingest.NewApplier(d.store("IngestFunction"), d.agentData(), d.Clock)
}

// Functions returns, by logical id, a factory of the Lambda handler of every
// function of template.yaml: each call makes one execution environment's
// handler, as a Lambda cold start does.
func Functions(d Deps) map[string]localgw.Factory {
	return map[string]localgw.Factory{
		"AuthorizerFunction": func() lambda.Handler {
			return lambda.NewHandler(authorizer.New(d.store("AuthorizerFunction"), d.Clock))
		},
		"RetentionFunction": func() lambda.Handler {
			return lambda.NewHandler(retention.New(d.store("RetentionFunction"), d.Clock))
		},
		"IngestFunction": func() lambda.Handler {
			return lambda.NewHandler(ingest.New(d.store("IngestFunction"), d.agentData(), d.Clock))
		},
		"SchedulerFunction": func() lambda.Handler {
			return lambda.NewHandler(scheduler.New(d.store("SchedulerFunction"), d.Clock))
		},
		"InvitesFunction": func() lambda.Handler {
			return lambda.NewHandler(invites.Function(invites.Deps{
				Store: d.store("InvitesFunction"), Mailer: d.Mailer, Clock: d.Clock, IDs: d.IDs, AcceptURL: d.AcceptURL,
			}))
		},
		"AgentsFunction": func() lambda.Handler {
			return lambda.NewHandler(agents.Function(agents.Deps{Store: d.store("AgentsFunction"), Clock: d.Clock}))
		},
		"CreditsFunction": func() lambda.Handler {
			return lambda.NewHandler(credits.Function(credits.Deps{Store: d.store("CreditsFunction"), Clock: d.Clock}))
		},
		"TeamsFunction": func() lambda.Handler {
			return lambda.NewHandler(teams.Function(teams.Deps{Store: d.store("TeamsFunction"), Clock: d.Clock, IDs: d.IDs}))
		},
		"MembersFunction": func() lambda.Handler {
			return lambda.NewHandler(members.Function(members.Deps{Store: d.store("MembersFunction")}))
		},
		"TagsFunction": func() lambda.Handler {
			return lambda.NewHandler(tags.Function(tags.Deps{Store: d.store("TagsFunction")}))
		},
		"AgentDataFunction": func() lambda.Handler {
			return lambda.NewHandler(agentdata.Function(agentdata.Deps{Store: d.store("AgentDataFunction"), Clock: d.Clock}))
		},
		"ChatsFunction": func() lambda.Handler {
			return lambda.NewHandler(agentdata.ChatFunction(agentdata.ChatDeps{Store: d.store("ChatsFunction")}))
		},
	}
}
