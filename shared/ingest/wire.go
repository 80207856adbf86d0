package ingest

import (
	"github.com/agentplatform/workspaceapi/shared/platform"
)

// Wire is the function's one wiring: its main and the local stack both
// build its handler here, from what every function is built from.
func Wire(env platform.Env) Handler {
	return New(env.Store, StoredAgentData{Store: env.Store, Clock: env.Clock}, env.Clock)
}
