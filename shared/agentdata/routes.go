// Package agentdata is the per-agent read endpoint group: the agent
// resource, its key metrics, connected agents, diary and promotion requests
// (AgentDataFunction), and one chat with its full history (ChatsFunction, a
// function of its own: it needs more memory and time than the others).
package agentdata

import (
	"context"
	"net/http"
	"time"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// AgentReader reads agents; both stores have it.
type AgentReader interface {
	Agent(ctx context.Context, ws, id string) (workspace.Agent, error)
}

// Store is the storage the group uses.
type Store interface {
	AgentReader
	AgentCredits(ctx context.Context, ws string, agents []workspace.Agent, now time.Time) (map[string]workspace.AgentCredit, error)
	AllAgents(ctx context.Context, ws, team string) ([]workspace.Agent, error)
	// TeamNames reads the names of the teams ids, by id.
	TeamNames(ctx context.Context, ws string, ids []string) (map[string]string, error)
	KeyMetrics(ctx context.Context, ws string, agent workspace.Agent, p workspace.Period, recent int) (workspace.KeyMetricsReport, error)
	DiaryDay(ctx context.Context, ws, agent string, day time.Time) ([]workspace.DiaryEntry, error)
	DiaryConversation(ctx context.Context, ws, agent, conversationID string) ([]workspace.DiaryEntry, error)
	DiaryMonth(ctx context.Context, ws, agent string, month time.Time) ([]workspace.DiaryDay, error)
}

// ChatStore is the storage of the chat route.
type ChatStore interface {
	AgentReader
	Chat(ctx context.Context, ws, agent, chatID string) (workspace.Chat, error)
}

// Deps are the group's dependencies.
type Deps struct {
	Store Store
	Clock workspace.Clock
}

// Routes returns the group's routes: every route it serves is listed here.
func Routes(d Deps) http.Handler {
	mux := httpapi.NewMux()
	mux.Handle("GET /workspaceapi/agents/{agentId}", getAgent(d.Store, d.Clock))
	mux.Handle("GET /agents/{agentId}", getAgent(d.Store, d.Clock))
	mux.Handle("GET /workspaceapi/agents/{agentId}/key-metrics", keyMetrics(d.Store, d.Clock))
	mux.Handle("GET /workspaceapi/agents/{agentId}/connected-agents", connectedAgents(d.Store))
	mux.Handle("GET /workspaceapi/agents/{agentId}/diary", diary(d.Store, d.Clock))
	mux.Handle("GET /workspaceapi/agents/{agentId}/promotion-requests", promotionRequests(d.Store))
	return mux
}

// Function returns the group's Lambda handler.
func Function(d Deps) httpapi.ProxyHandler { return httpapi.Lambda(Routes(d), httpapi.ReadOnly) }

// ChatDeps are the chat route's dependencies.
type ChatDeps struct {
	Store ChatStore
}

// ChatRoutes returns the chat function's one route.
func ChatRoutes(d ChatDeps) http.Handler {
	mux := httpapi.NewMux()
	mux.Handle("GET /workspaceapi/agents/{agentId}/chats/{chatId}", getChat(d.Store))
	return mux
}

// ChatFunction returns the chat function's Lambda handler.
func ChatFunction(d ChatDeps) httpapi.ProxyHandler {
	return httpapi.Lambda(ChatRoutes(d), httpapi.ReadOnly)
}

// readAgent reads the request's agent for a caller with read scope: an
// implausible id or an agent outside the key's scope is not found; a
// private one is forbidden unless privateOK (promotion requests).
func readAgent(r *http.Request, store AgentReader, privateOK bool) (workspace.Caller, workspace.Agent, error) {
	caller, err := httpapi.Caller(r, workspace.ScopeRead)
	if err != nil {
		return caller, workspace.Agent{}, err
	}
	id := r.PathValue("agentId")
	if !workspace.PlausibleID(id) {
		return caller, workspace.Agent{}, workspace.ErrAgentNotFound
	}
	agent, err := store.Agent(r.Context(), caller.WorkspaceID, id)
	if err != nil {
		return caller, agent, err
	}
	if privateOK {
		return caller, agent, workspace.AgentInScope(caller, agent)
	}
	return caller, agent, workspace.AgentReadable(caller, agent)
}
