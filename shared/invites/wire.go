package invites

import (
	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/platform"
)

// Wire is the function's one wiring: its main and the local stack both build
// its handler here, from what every function is built from and the mailer
// (SES in AWS, a recorder where SES cannot run: mail.FromConfig). It reads
// the cursor key, once per cold start (httpapi.LoadCursors).
func Wire(env platform.Env, mailer Mailer) httpapi.ProxyHandler {
	return Function(Deps{
		Store: env.Store, Mailer: mailer, Clock: env.Clock, IDs: env.IDs,
		AcceptURL: env.Config.InviteAcceptURL, Retention: env.Config.InviteRetention,
		Idempotency: httpapi.Idempotency{Store: env.Store, Clock: env.Clock},
		Cursors:     httpapi.LoadCursors(env.Store),
	})
}
