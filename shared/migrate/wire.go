package migrate

import (
	"net/http"
	"time"

	"github.com/agentplatform/workspaceapi/shared/platform"
)

// Wire is the function's one wiring: its main and the local stack both
// build its handler here, from what every function is built from.
func Wire(env platform.Env) Handler {
	return NewFunction(Deps{Store: env.Store, Clock: env.Clock, IDs: env.IDs, HTTP: &http.Client{Timeout: 10 * time.Second}})
}
