package workspace

import "time"

// AgentDiscoverability says who may newly connect to an agent (decisions §5).
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

// Agent is an agent of a workspace, in the shape the API's agent resource has.
// Usage, status and overview figures are kept elsewhere.
type Agent struct {
	ID          string `json:"id"`
	WorkspaceID string `json:"-"` // the owning workspace; never shown, the key implies it
	Name        string `json:"name"`
	Description string `json:"description"`
	ImageURL    string `json:"imageUrl"`
	TeamID      string `json:"teamId"` // empty: the agent belongs to no team
	// IsPrivate marks a restricted or personal agent: listed, but per-agent
	// GETs other than promotion requests answer 403.
	IsPrivate bool `json:"isPrivate"`
	// AgentDiscoverability is one of DiscoverabilityWorkspace, DiscoverabilityTeam, DiscoverabilityNone.
	AgentDiscoverability string   `json:"agentDiscoverability"`
	Tags                 []string `json:"tags"`
	// DailyCreditLimit is the agent's own daily limit; nil falls back to the
	// workspace's default.
	DailyCreditLimit *float64 `json:"dailyCreditLimit"`
	// MonthlyCreditLimit is the agent's monthly limit; nil: none.
	MonthlyCreditLimit *float64 `json:"monthlyCreditLimit"`
	// ShowTokenOptimisationInfo shows per-message credit details in the agent's chats.
	ShowTokenOptimisationInfo bool                  `json:"showTokenOptimisationInfo"`
	KeyMetrics                []KeyMetricDefinition `json:"keyMetrics"`
	// Connections are the ids of the agents this agent connects to (outbound).
	Connections       []string           `json:"connections"`
	PromotionRequests []PromotionRequest `json:"promotionRequests"`
}

// KeyMetricDefinition is an outcome an agent's owner chose to count.
type KeyMetricDefinition struct {
	Name        string      `json:"name"`
	Description string      `json:"description"`
	Measurement Measurement `json:"measurement"`
}

// Measurement says how a key metric's values are measured and aggregated.
type Measurement struct {
	Unit string `json:"unit"`
	// Aggregation is AggregationAverage or AggregationSum.
	Aggregation string `json:"aggregation"`
}

// PromotionRequest is a request to promote an agent (for example to wider
// availability), listed by the promotion-requests GET.
type PromotionRequest struct {
	ID                string    `json:"id"`
	RequestedByUserID string    `json:"requestedByUserId"`
	RequestedAt       time.Time `json:"requestedAt"`
	Status            string    `json:"status"`
	Note              string    `json:"note"`
}
