package httpapi

import "github.com/agentplatform/workspaceapi/shared/workspace"

// AgentState is an agent's running state on the wire (docs/credit-rules.md): the
// overview's, the credits report's and a batch result's impact.
type AgentState struct {
	// Status is running, stopped or paused.
	Status string `json:"status"`
	// StatusReason is daily_limit, monthly_limit or team_limit; null while running.
	StatusReason *string `json:"statusReason"`
}

// NewAgentState returns s's wire form.
func NewAgentState(s workspace.AgentState) AgentState {
	out := AgentState{Status: s.Status}
	if !s.IsRunning() && s.Reason != "" {
		reason := s.Reason
		out.StatusReason = &reason
	}
	return out
}

// Impact returns the impact of a batch result: s's wire form, or nil (no
// impact field) when the write left the agent's running state as it was.
func Impact(s *workspace.AgentState) any {
	if s == nil {
		return nil
	}
	return NewAgentState(*s)
}
