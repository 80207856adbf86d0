package workspace

// Agent disable and enable (POST /workspaceapi/agents/status,
// docs/credit-rules.md): a disabled agent shows status and reason
// "disabled" over every other, its usage still counts, and enabling it
// re-evaluates its limits at once, so it may come back stopped or paused.

// The values of the status a disable or enable batch sets.
const (
	AgentDisabled = "disabled"
	AgentEnabled  = "enabled"
)

// ParseAgentStatus returns whether status asks to disable the agents: it
// must be AgentDisabled or AgentEnabled (KindInvalid otherwise).
func ParseAgentStatus(status string) (disable bool, err error) {
	switch status {
	case AgentDisabled:
		return true, nil
	case AgentEnabled:
		return false, nil
	}
	return false, Invalid("status must be %q or %q", AgentDisabled, AgentEnabled)
}

// DecideStatus is the rule of a disable or enable: disabling an enabled
// agent or enabling a disabled one writes its flag; the other way round
// changes nothing (unchanged). Disabling keeps the agent's own state as it
// is (usage goes on moving it underneath); enabling takes it from its
// limits and the usage read, which it rests on, like a limit change.
// Impact is the change of the running state every reader shows.
func DecideStatus(a Agent, sd AgentStanding, disable bool) AgentChange {
	out := CreditOutcome{ID: a.ID, Name: a.Name, Limits: sd.Credit.Limits()}
	if sd.Credit.Disabled == disable {
		out.Unchanged = true
		return AgentChange{Outcome: out, SetStatus: true, Disabled: disable, To: sd.Credit.Own}
	}
	after := sd.Credit
	after.Disabled = disable
	premises := Premises{}
	if !disable {
		after.Own = after.Position.OwnState()
		premises = usagePremises(after.Position, after.Own)
		premises.AgentLimits = true
	}
	out.Impact = Impact(sd.Credit.State(), after.State())
	return AgentChange{Outcome: out, Write: true, SetStatus: true, Disabled: disable, To: after.Own, Premises: premises}
}
