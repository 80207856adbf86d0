package agents

import (
	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/platform"
)

// Wire is the function's one wiring: its main and the local stack both
// build its handler here, from what every function is built from. It reads
// the cursor key, once per cold start (httpapi.LoadCursors).
func Wire(env platform.Env) httpapi.ProxyHandler {
	return Function(Deps{Store: env.Store, Clock: env.Clock, Cursors: httpapi.LoadCursors(env.Store)})
}
