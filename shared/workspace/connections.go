package workspace

import "slices"

// DiscoverableTo reports whether agent from may newly connect to target by
// target's agentDiscoverability (docs/agent-data.md): workspace, anyone; team, only
// an agent of target's own team (an agent without a team is in no team, so a
// team-discoverable agent without one is discoverable to nobody); none,
// nobody.
func DiscoverableTo(target, from Agent) bool {
	switch target.AgentDiscoverability {
	case DiscoverabilityWorkspace:
		return true
	case DiscoverabilityTeam:
		return target.TeamID != "" && target.TeamID == from.TeamID
	}
	return false
}

// Connections are an agent's connected agents (docs/agent-data.md).
type Connections struct {
	Outbound, Inbound, Available []Agent
}

// Connect sorts agent a's connections out of every agent of its workspace
// (all) and the caller's scope (inScope: what the key sees). Outbound and
// inbound are real connections, whatever their privacy or team; available
// are agents of inScope that a may newly connect to: not a itself, not
// connected outbound already, not private, discoverable to a. An agent
// connecting to a only inbound is still available. Outbound keeps a's order
// of connections (ids no longer naming an agent are skipped); the others
// keep the order of their inputs.
func Connect(a Agent, all, inScope []Agent) Connections {
	c := Connections{Outbound: []Agent{}, Inbound: []Agent{}, Available: []Agent{}}
	byID := make(map[string]Agent, len(all))
	for _, o := range all {
		byID[o.ID] = o
	}
	seen := map[string]bool{}
	for _, id := range a.Connections {
		if o, ok := byID[id]; ok && !seen[id] && id != a.ID {
			seen[id] = true
			c.Outbound = append(c.Outbound, o)
		}
	}
	for _, o := range all {
		if o.ID != a.ID && slices.Contains(o.Connections, a.ID) {
			c.Inbound = append(c.Inbound, o)
		}
	}
	for _, o := range inScope {
		if o.ID != a.ID && !seen[o.ID] && !o.IsPrivate && DiscoverableTo(o, a) {
			c.Available = append(c.Available, o)
		}
	}
	return c
}
