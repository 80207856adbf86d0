// Package stack wires every function of template.yaml for in-process use: the
// local runner and the integration tests invoke the same handlers that each
// function's main starts in Lambda.
package stack

import (
	"slices"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/agentplatform/workspaceapi/infra/localgw"
	"github.com/agentplatform/workspaceapi/shared/agentdata"
	"github.com/agentplatform/workspaceapi/shared/agents"
	"github.com/agentplatform/workspaceapi/shared/audit"
	"github.com/agentplatform/workspaceapi/shared/authorizer"
	"github.com/agentplatform/workspaceapi/shared/config"
	"github.com/agentplatform/workspaceapi/shared/credits"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/ingest"
	"github.com/agentplatform/workspaceapi/shared/invites"
	"github.com/agentplatform/workspaceapi/shared/keys"
	"github.com/agentplatform/workspaceapi/shared/limitevents"
	"github.com/agentplatform/workspaceapi/shared/members"
	"github.com/agentplatform/workspaceapi/shared/migrate"
	"github.com/agentplatform/workspaceapi/shared/platform"
	"github.com/agentplatform/workspaceapi/shared/retention"
	"github.com/agentplatform/workspaceapi/shared/scheduler"
	"github.com/agentplatform/workspaceapi/shared/tags"
	"github.com/agentplatform/workspaceapi/shared/teams"
	"github.com/agentplatform/workspaceapi/shared/webhookdelivery"
	"github.com/agentplatform/workspaceapi/shared/webhooks"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// LocalEventBus is the name the local stack's events function publishes to.
const LocalEventBus = "workspace-api-local-limits"

// Deps are what the functions share.
type Deps struct {
	Store *dynamo.Store
	// AuthorizerStore, when set, is the authorizer's store (tests count its
	// round trips apart); nil means Store.
	AuthorizerStore *dynamo.Store
	// StoreFor, when set, gives each function (by logical id) a store of its
	// own, so tests can record or fault each function's calls apart; it
	// takes precedence over Store and AuthorizerStore.
	StoreFor func(functionID string) *dynamo.Store
	Mailer   invites.Mailer
	// Events is the EventBridge bus the events function publishes to; nil
	// gives the stack a limitevents.Recorder of its own.
	Events limitevents.Bus
	// WebhookQueue is the webhook delivery queue; nil gives the stack a
	// LocalQueue of its own, which runs WebhookDeliveryFunction's code on
	// each message once its delay has passed (make run).
	WebhookQueue webhookdelivery.Queue
	// WebhookQueueFor, when set, gives each function (by logical id) a
	// delivery queue of its own, so tests can record each one's calls; it
	// takes precedence over WebhookQueue.
	WebhookQueueFor func(functionID string) webhookdelivery.Queue
	Clock           workspace.Clock
	IDs             workspace.IDGenerator
	// Config is the functions' configuration, as their environment gives it
	// in Lambda; the table, endpoint and mail sender are the stack's own.
	Config config.Config
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

// env is what function fn is built from: the same platform.Env its main
// loads in Lambda, over the stack's store, clock and ids.
func (d Deps) env(fn string) platform.Env {
	cfg := d.Config
	if cfg.InviteAcceptURL == "" {
		cfg.InviteAcceptURL = config.DefaultInviteAcceptURL
	}
	if cfg.EventBusName == "" {
		cfg.EventBusName = LocalEventBus
	}
	if cfg.InviteRetention == 0 {
		cfg.InviteRetention = workspace.DefaultInviteRetention
	}
	store := d.store(fn)
	if cfg.AuditRetention > 0 {
		store = store.WithAuditRetention(cfg.AuditRetention)
	}
	return platform.Env{Config: cfg, Store: store, Clock: d.Clock, IDs: d.IDs}
}

// EventApplier returns what the fixture loader applies a fixture's events
// with: the ingest function's code path over d's store and clock.
func EventApplier(d Deps) ingest.Applier {
	store := d.store("IngestFunction")
	return ingest.NewApplier(store, ingest.StoredAgentData{Store: store, Clock: d.Clock}, d.Clock)
}

// Functions returns, by logical id, a factory of the Lambda handler of every
// function of template.yaml: each call makes one execution environment's
// handler, as a Lambda cold start does, through the function's own Wire,
// as its main does.
func Functions(d Deps) map[string]localgw.Factory {
	bus := d.Events
	if bus == nil {
		bus = &limitevents.Recorder{}
	}
	queue := d.WebhookQueue
	if queue == nil {
		local := &LocalQueue{}
		local.Deliver = webhookdelivery.NewDeliverer(d.env("WebhookDeliveryFunction"), local).Deliver
		queue = local
	}
	queueOf := func(fn string) webhookdelivery.Queue {
		if d.WebhookQueueFor != nil {
			return d.WebhookQueueFor(fn)
		}
		return queue
	}
	wire := func(id string, build func(platform.Env) any) localgw.Factory {
		return func() lambda.Handler { return lambda.NewHandler(build(d.env(id))) }
	}
	return map[string]localgw.Factory{
		"AuthorizerFunction": wire("AuthorizerFunction", func(e platform.Env) any { return authorizer.Wire(e) }),
		"RetentionFunction":  wire("RetentionFunction", func(e platform.Env) any { return retention.Wire(e) }),
		"EventsFunction":     wire("EventsFunction", func(e platform.Env) any { return limitevents.Wire(e, bus, queueOf("EventsFunction")) }),
		"IngestFunction":     wire("IngestFunction", func(e platform.Env) any { return ingest.Wire(e) }),
		"SchedulerFunction":  wire("SchedulerFunction", func(e platform.Env) any { return scheduler.Wire(e) }),
		"InvitesFunction":    wire("InvitesFunction", func(e platform.Env) any { return invites.Wire(e, d.Mailer) }),
		"AgentsFunction":     wire("AgentsFunction", func(e platform.Env) any { return agents.Wire(e) }),
		"CreditsFunction":    wire("CreditsFunction", func(e platform.Env) any { return credits.Wire(e) }),
		"TeamsFunction":      wire("TeamsFunction", func(e platform.Env) any { return teams.Wire(e) }),
		"MembersFunction":    wire("MembersFunction", func(e platform.Env) any { return members.Wire(e) }),
		"TagsFunction":       wire("TagsFunction", func(e platform.Env) any { return tags.Wire(e) }),
		"AuditFunction":      wire("AuditFunction", func(e platform.Env) any { return audit.Wire(e) }),
		"AgentDataFunction":  wire("AgentDataFunction", func(e platform.Env) any { return agentdata.Wire(e) }),
		"ChatsFunction":      wire("ChatsFunction", func(e platform.Env) any { return agentdata.WireChats(e) }),
		"KeysFunction":       wire("KeysFunction", func(e platform.Env) any { return keys.Wire(e) }),
		"MigrateFunction":    wire("MigrateFunction", func(e platform.Env) any { return migrate.Wire(e) }),
		"WebhooksFunction":   wire("WebhooksFunction", func(e platform.Env) any { return webhooks.Wire(e, queueOf("WebhooksFunction")) }),
		"WebhookDeliveryFunction": wire("WebhookDeliveryFunction", func(e platform.Env) any {
			return webhookdelivery.Wire(e, queueOf("WebhookDeliveryFunction"))
		}),
	}
}

// GatewayOptions are the local gateway's options for the stack: o, with the
// routes that revoke or disable a key, or take its owner out of its team,
// flushing the authorizer cache, so that such a key stops working at once
// locally (in AWS, within the cache's TTL).
func GatewayOptions(o localgw.Options) localgw.Options {
	o.FlushAuthorizerCacheOn = slices.Concat(keys.CredentialRoutes, teams.CredentialRoutes)
	return o
}
