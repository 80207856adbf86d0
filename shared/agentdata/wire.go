package agentdata

import (
	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/platform"
)

// Wire is AgentDataFunction's one wiring: its main and the local stack both
// build its handler here, from what every function is built from.
func Wire(env platform.Env) httpapi.ProxyHandler {
	return Function(Deps{Store: env.Store, Clock: env.Clock})
}

// WireChats is ChatsFunction's one wiring, as Wire is AgentDataFunction's.
func WireChats(env platform.Env) httpapi.ProxyHandler {
	return ChatFunction(ChatDeps{Store: env.Store})
}
