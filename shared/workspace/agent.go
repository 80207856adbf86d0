package workspace

import "time"

// AgentDiscoverability says who may newly connect to an agent (docs/endpoints.md).
const (
	// DiscoverabilityWorkspace: anyone in the workspace may connect.
	DiscoverabilityWorkspace = "workspace"
	// DiscoverabilityTeam: only agents of the agent's own team may connect.
	DiscoverabilityTeam = "team"
	// DiscoverabilityNone: nobody may newly connect.
	DiscoverabilityNone = "none"
)

// ValidDiscoverability reports whether s is an agentDiscoverability value.
func ValidDiscoverability(s string) bool {
	return s == DiscoverabilityWorkspace || s == DiscoverabilityTeam || s == DiscoverabilityNone
}

// Key metric aggregations (measurement.aggregation).
const (
	AggregationAverage = "average"
	AggregationSum     = "sum"
)

// ValidAggregation reports whether s is a measurement.aggregation value.
func ValidAggregation(s string) bool { return s == AggregationAverage || s == AggregationSum }

// Agent is an agent of a workspace. Usage, status and overview figures are
// kept elsewhere; its wire forms belong to the HTTP layer and the fixture,
// its stored form to the store.
type Agent struct {
	ID          string
	WorkspaceID string // the owning workspace
	Name        string
	Description string
	ImageURL    string
	TeamID      string // empty: the agent belongs to no team
	// IsPrivate marks a restricted or personal agent: listed, but per-agent
	// GETs other than promotion requests answer 403.
	IsPrivate bool
	// AgentDiscoverability is one of DiscoverabilityWorkspace, DiscoverabilityTeam, DiscoverabilityNone.
	AgentDiscoverability string
	Tags                 []string
	// DailyCreditLimit is the agent's own daily limit; nil falls back to the
	// workspace's default.
	DailyCreditLimit *float64
	// MonthlyCreditLimit is the agent's monthly limit; nil: none.
	MonthlyCreditLimit *float64
	// ShowTokenOptimisationInfo shows per-message credit details in the agent's chats.
	ShowTokenOptimisationInfo bool
	KeyMetrics                []KeyMetricDefinition
	// Connections are the ids of the agents this agent connects to (outbound).
	Connections       []string
	PromotionRequests []PromotionRequest
}

// KeyMetricDefinition is an outcome an agent's owner chose to count.
type KeyMetricDefinition struct {
	Name        string
	Description string
	Measurement Measurement
}

// Measurement says how a key metric's values are measured and aggregated.
type Measurement struct {
	Unit string
	// Aggregation is AggregationAverage or AggregationSum.
	Aggregation string
}

// PromotionRequest is a request to promote an agent (for example to wider
// availability), listed by the promotion-requests GET.
type PromotionRequest struct {
	ID                string
	RequestedByUserID string
	RequestedAt       time.Time
	Status            string
	Note              string
}

// ErrPrivateAgent is the 403 of every per-agent GET on a restricted or
// personal agent except its promotion requests (docs/agent-data.md).
var ErrPrivateAgent = Forbidden("this agent is restricted or personal: its data cannot be read through the API")

// AgentInScope returns ErrAgentNotFound when a team-scoped caller's key
// cannot see agent a (it belongs to another team, or to none): existence
// never leaks across a key's scope.
func AgentInScope(c Caller, a Agent) error {
	if c.TeamScoped() && a.TeamID != c.TeamID {
		return ErrAgentNotFound
	}
	return nil
}

// AgentReadable is AgentInScope, then ErrPrivateAgent for a private agent:
// the check of every per-agent GET but promotion requests.
func AgentReadable(c Caller, a Agent) error {
	if err := AgentInScope(c, a); err != nil {
		return err
	}
	if a.IsPrivate {
		return ErrPrivateAgent
	}
	return nil
}
