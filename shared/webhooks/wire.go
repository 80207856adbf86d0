package webhooks

import (
	"net"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/platform"
	"github.com/agentplatform/workspaceapi/shared/webhookdelivery"
)

// Wire is the function's one wiring: its main and the local stack both
// build its handler here, from what every function is built from and the
// delivery queue (webhookdelivery.QueueFromConfig in AWS).
func Wire(env platform.Env, queue webhookdelivery.Queue) httpapi.ProxyHandler {
	return Function(Deps{Store: env.Store, Clock: env.Clock, IDs: env.IDs, Cursors: httpapi.LoadCursors(env.Store),
		Queue: queue, Resolver: net.DefaultResolver, Local: env.Config.WebhookLocal,
		Idempotency: httpapi.Idempotency{Store: env.Store, Clock: env.Clock}})
}
