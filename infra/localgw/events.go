package localgw

import (
	"context"
	"encoding/json"
	"net"
	"net/http"

	"github.com/agentplatform/workspaceapi/shared/limitevents"
)

const localEventsPath = "/_local/events"

// EventLog is the local EventBridge bus: what the events function published,
// oldest first.
type EventLog interface {
	Events() []limitevents.Published
}

// serveLocalEvents answers GET /_local/events: {"events": [{"detail-type",
// "detail"}]}, oldest first. Like /_local/invoke it needs no key, and so it
// answers only this machine: a request from another address, or from a web
// page of another origin, is refused (the events name tenants' agents and
// their usage).
func (g *Gateway) serveLocalEvents(r *http.Request) *response {
	if r.Method != http.MethodGet {
		res := localError(http.StatusMethodNotAllowed, "use GET to list the published events")
		res.header.Set("Allow", http.MethodGet)
		return res
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		return localError(http.StatusForbidden, "the published events are listed to this machine only")
	}
	if origin := r.Header.Values("Origin"); len(origin) > 0 && !(len(origin) == 1 && loopbackOrigin(origin[0])) {
		return localError(http.StatusForbidden, "the published events are not listed to a web page of another origin")
	}
	body, err := json.Marshal(map[string][]limitevents.Published{"events": g.events.Events()})
	if err != nil {
		return localError(http.StatusInternalServerError, "cannot encode the published events")
	}
	res := &response{status: http.StatusOK, header: http.Header{}, body: body}
	res.header.Set("Content-Type", "application/json")
	res.header.Set("Cache-Control", "no-store")
	return res
}

// Invoke invokes function id with an event, as Lambda's event sources do
// (the local stream poller among them), and returns its JSON result.
func (g *Gateway) Invoke(ctx context.Context, id string, event []byte) ([]byte, error) {
	return g.invoke(ctx, id, event)
}
