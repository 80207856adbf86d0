package ingest

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// The provisioning event types (docs/ingest-events.md, Provisioning events):
// the platform's workspaces, members, accepted invitations and agents.
const (
	TypeWorkspaceUpserted = "workspace.upserted"
	TypeMemberUpserted    = "member.upserted"
	TypeMemberRemoved     = "member.removed"
	TypeInviteAccepted    = "invite.accepted"
	TypeAgentUpserted     = "agent.upserted"
	TypeAgentRemoved      = "agent.removed"
)

// provisionTypes are the provisioning event types.
var provisionTypes = []string{TypeWorkspaceUpserted, TypeMemberUpserted, TypeMemberRemoved,
	TypeInviteAccepted, TypeAgentUpserted, TypeAgentRemoved}

// Provisioner applies provisioning events (shared/dynamo's Store): each
// method applies one validated event, in order per entity by its version
// (a version not above the stored one changes nothing and returns nil), and
// records its changes with the platform actor.
type Provisioner interface {
	ApplyWorkspaceUpsert(ctx context.Context, p workspace.Provision, f workspace.WorkspaceFields, now time.Time) error
	ApplyMemberUpsert(ctx context.Context, p workspace.Provision, userID string, f workspace.MemberFields, now time.Time) error
	ApplyMemberRemoval(ctx context.Context, p workspace.Provision, userID string, now time.Time) error
	ApplyInviteAcceptance(ctx context.Context, p workspace.Provision, a workspace.Acceptance, now time.Time) error
	ApplyAgentUpsert(ctx context.Context, p workspace.Provision, agentID string, f workspace.AgentFields, now time.Time) error
	ApplyAgentRemoval(ctx context.Context, p workspace.Provision, agentID string, now time.Time) error
}

// Provisioning is a validated provisioning event: Head.Type says which of
// its fields are set.
type Provisioning struct {
	Head
	Version    int64
	Workspace  workspace.WorkspaceFields
	UserID     string // member.upserted (member.id), member.removed, invite.accepted
	Member     workspace.MemberFields
	Acceptance workspace.Acceptance
	Agent      workspace.AgentFields
}

// apply applies the event through store at now.
func (e Provisioning) apply(ctx context.Context, store Provisioner, now time.Time) error {
	p := workspace.Provision{EventID: e.ID, WorkspaceID: e.WorkspaceID, Version: e.Version}
	switch e.Type {
	case TypeWorkspaceUpserted:
		return store.ApplyWorkspaceUpsert(ctx, p, e.Workspace, now)
	case TypeMemberUpserted:
		return store.ApplyMemberUpsert(ctx, p, e.UserID, e.Member, now)
	case TypeMemberRemoved:
		return store.ApplyMemberRemoval(ctx, p, e.UserID, now)
	case TypeInviteAccepted:
		if limit := now.Add(workspace.MaxUsageSkew); e.Acceptance.AcceptedAt.After(limit) {
			return workspace.Invalid("acceptedAt must not be more than %s after now", workspace.MaxUsageSkew)
		}
		return store.ApplyInviteAcceptance(ctx, p, e.Acceptance, now)
	case TypeAgentUpserted:
		return store.ApplyAgentUpsert(ctx, p, e.AgentID, e.Agent, now)
	case TypeAgentRemoved:
		return store.ApplyAgentRemoval(ctx, p, e.AgentID, now)
	}
	return workspace.Invalid("type %s is not a provisioning event", e.Type)
}

// wireProvision is the part of every provisioning event's JSON beyond the
// head.
type wireProvision struct {
	wireHead
	Version *int64 `json:"version"`
}

type wireWorkspaceUpserted struct {
	wireProvision
	Workspace *struct {
		Name                    *string                     `json:"name"`
		Seats                   *int                        `json:"seats"`
		TeamSettingsEnabled     *bool                       `json:"teamSettingsEnabled"`
		AllowedEmailDomains     *[]string                   `json:"allowedEmailDomains"`
		DefaultDailyCreditLimit workspace.Nullable[float64] `json:"defaultDailyCreditLimit"`
	} `json:"workspace"`
}

type wireMemberUpserted struct {
	wireProvision
	Member *struct {
		ID       string  `json:"id"`
		Email    *string `json:"email"`
		Name     *string `json:"name"`
		Role     *string `json:"role"`
		JoinedAt *string `json:"joinedAt"`
	} `json:"member"`
}

type wireMemberRemoved struct {
	wireProvision
	UserID string `json:"userId"`
}

type wireInviteAccepted struct {
	wireProvision
	InviteID   string `json:"inviteId"`
	UserID     string `json:"userId"`
	Name       string `json:"name"`
	AcceptedAt string `json:"acceptedAt"`
}

type wireAgentUpserted struct {
	wireProvision
	Agent *struct {
		Name                 *string                    `json:"name"`
		Description          workspace.Nullable[string] `json:"description"`
		ImageURL             workspace.Nullable[string] `json:"imageUrl"`
		TeamID               workspace.Nullable[string] `json:"teamId"`
		IsPrivate            *bool                      `json:"isPrivate"`
		AgentDiscoverability *string                    `json:"agentDiscoverability"`
		KeyMetrics           *[]wireKeyMetric           `json:"keyMetrics"`
		Connections          *[]string                  `json:"connections"`
	} `json:"agent"`
}

type wireKeyMetric struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Measurement *struct {
		Unit        string `json:"unit"`
		Aggregation string `json:"aggregation"`
	} `json:"measurement"`
}

type wireAgentRemoved struct {
	wireProvision
}

// parseProvision decodes and validates a provisioning event of type typ.
func parseProvision(body []byte, typ string) (*Provisioning, error) {
	switch typ {
	case TypeWorkspaceUpserted:
		return parseAs[wireWorkspaceUpserted](body)
	case TypeMemberUpserted:
		return parseAs[wireMemberUpserted](body)
	case TypeMemberRemoved:
		return parseAs[wireMemberRemoved](body)
	case TypeInviteAccepted:
		return parseAs[wireInviteAccepted](body)
	case TypeAgentUpserted:
		return parseAs[wireAgentUpserted](body)
	case TypeAgentRemoved:
		return parseAs[wireAgentRemoved](body)
	}
	return nil, workspace.Invalid("type %s is not a provisioning event", typ)
}

// provisionWire is the JSON of one provisioning type, which validates
// itself.
type provisionWire interface {
	provisioning() (*Provisioning, error)
}

// parseAs decodes body strictly as a W and validates it.
func parseAs[W provisionWire](body []byte) (*Provisioning, error) {
	var w W
	if err := decode(body, &w); err != nil {
		return nil, err
	}
	return w.provisioning()
}

func (w wireMemberRemoved) provisioning() (*Provisioning, error) {
	e, err := w.check(false)
	if err == nil {
		err = checkID("userId", w.UserID, true)
	}
	e.UserID = w.UserID
	return e, err
}

func (w wireAgentRemoved) provisioning() (*Provisioning, error) { return w.check(true) }

// check validates the head and version: id and workspaceId always, agentId
// exactly when agent is set (only agent events name an agent).
func (w wireProvision) check(agent bool) (*Provisioning, error) {
	e := &Provisioning{Head: w.head()}
	for _, f := range []struct{ name, v string }{{"id", w.ID}, {"workspaceId", w.WorkspaceID}} {
		if err := checkID(f.name, f.v, true); err != nil {
			return e, err
		}
	}
	switch {
	case agent:
		if err := checkID("agentId", w.AgentID, true); err != nil {
			return e, err
		}
	case w.AgentID != "":
		return e, workspace.Invalid("agentId is not a field of %s", w.Type)
	}
	switch {
	case w.Version == nil:
		return e, workspace.Invalid("version is required (a positive integer that grows per entity)")
	case *w.Version < 1 || *w.Version > workspace.MaxProvisionVersion:
		return e, workspace.Invalid("version must be an integer from 1 to %d", int64(workspace.MaxProvisionVersion))
	}
	e.Version = *w.Version
	return e, nil
}

func (w wireWorkspaceUpserted) provisioning() (*Provisioning, error) {
	e, err := w.check(false)
	if err != nil {
		return e, err
	}
	ws := w.Workspace
	if ws == nil {
		return e, workspace.Invalid("workspace is required")
	}
	if ws.Name != nil {
		if err := checkName("workspace.name", *ws.Name); err != nil {
			return e, err
		}
	}
	if ws.Seats != nil && (*ws.Seats < 0 || *ws.Seats > workspace.MaxWorkspaceSeats) {
		return e, workspace.Invalid("workspace.seats must be an integer from 0 to %d", workspace.MaxWorkspaceSeats)
	}
	if d := ws.AllowedEmailDomains; d != nil {
		if len(*d) > workspace.MaxAllowedEmailDomains {
			return e, workspace.Invalid("workspace.allowedEmailDomains may list at most %d domains", workspace.MaxAllowedEmailDomains)
		}
		for i, dom := range *d {
			// A domain is valid when an address at it is.
			if workspace.ValidateEmail("a@"+dom) != nil {
				return e, workspace.Invalid("workspace.allowedEmailDomains[%d] must be an e-mail domain", i)
			}
		}
	}
	if v, ok := ws.DefaultDailyCreditLimit.Get(); ok {
		if err := workspace.CheckCredits("workspace.defaultDailyCreditLimit", v, false); err != nil {
			return e, err
		}
		ws.DefaultDailyCreditLimit = workspace.Value(workspace.RoundFigure(v))
	}
	e.Workspace = workspace.WorkspaceFields{Name: ws.Name, Seats: ws.Seats, TeamSettingsEnabled: ws.TeamSettingsEnabled,
		AllowedEmailDomains: ws.AllowedEmailDomains, DefaultDailyCreditLimit: ws.DefaultDailyCreditLimit}
	return e, nil
}

// checkName requires a non-empty name of at most workspace.MaxStringLength
// characters without key-shaped text.
func checkName(field, s string) error {
	if strings.TrimSpace(s) == "" {
		return workspace.Invalid("%s must not be empty", field)
	}
	return checkPlainText(field, s)
}

// checkPlainText bounds a string that is stored and shown, and refuses
// key-shaped text in it (never echoed).
func checkPlainText(field, s string) error {
	if err := checkText(field, s, false); err != nil {
		return err
	}
	if workspace.ContainsKey(s) {
		return workspace.Invalid("%s looks like it holds an API key (not shown)", field)
	}
	return nil
}

func (w wireMemberUpserted) provisioning() (*Provisioning, error) {
	e, err := w.check(false)
	if err != nil {
		return e, err
	}
	m := w.Member
	if m == nil {
		return e, workspace.Invalid("member is required")
	}
	if err := checkID("member.id", m.ID, true); err != nil {
		return e, err
	}
	e.UserID = m.ID
	if m.Email != nil {
		if err := workspace.ValidateEmail(*m.Email); err != nil {
			return e, workspace.Invalid("member.email: %s", err.Error())
		}
		if workspace.ContainsKey(*m.Email) {
			return e, workspace.Invalid("member.email looks like it holds an API key (not shown)")
		}
	}
	if m.Name != nil {
		if err := checkPlainText("member.name", *m.Name); err != nil {
			return e, err
		}
	}
	f := workspace.MemberFields{Email: m.Email, Name: m.Name}
	if m.Role != nil {
		role := workspace.Role(*m.Role)
		if !role.Valid() {
			return e, workspace.Invalid("member.role must be one of: admin, member, collaborator")
		}
		f.Role = &role
	}
	if m.JoinedAt != nil {
		t, err := parseTime("member.joinedAt", *m.JoinedAt)
		if err != nil {
			return e, err
		}
		f.JoinedAt = &t
	}
	e.Member = f
	return e, nil
}

func (w wireInviteAccepted) provisioning() (*Provisioning, error) {
	e, err := w.check(false)
	if err != nil {
		return e, err
	}
	for _, f := range []struct{ name, v string }{{"inviteId", w.InviteID}, {"userId", w.UserID}} {
		if err := checkID(f.name, f.v, true); err != nil {
			return e, err
		}
	}
	if err := checkName("name", w.Name); err != nil {
		return e, err
	}
	at, err := parseTime("acceptedAt", w.AcceptedAt)
	if err != nil {
		return e, err
	}
	e.UserID = w.UserID
	e.Acceptance = workspace.Acceptance{InviteID: w.InviteID, UserID: w.UserID, Name: w.Name, AcceptedAt: at}
	return e, nil
}

func (w wireAgentUpserted) provisioning() (*Provisioning, error) {
	e, err := w.check(true)
	if err != nil {
		return e, err
	}
	a := w.Agent
	if a == nil {
		return e, workspace.Invalid("agent is required")
	}
	if a.Name != nil {
		if err := checkName("agent.name", *a.Name); err != nil {
			return e, err
		}
	}
	for _, f := range []struct {
		name string
		v    workspace.Nullable[string]
	}{{"agent.description", a.Description}, {"agent.imageUrl", a.ImageURL}} {
		if v, ok := f.v.Get(); ok {
			if err := checkPlainText(f.name, v); err != nil {
				return e, err
			}
		}
	}
	if v, ok := a.TeamID.Get(); ok {
		if err := checkID("agent.teamId", v, false); err != nil {
			return e, err
		}
	}
	if d := a.AgentDiscoverability; d != nil && !workspace.ValidDiscoverability(*d) {
		return e, workspace.Invalid("agent.agentDiscoverability must be one of: workspace, team, none")
	}
	f := workspace.AgentFields{Name: a.Name, Description: a.Description, ImageURL: a.ImageURL, TeamID: a.TeamID,
		IsPrivate: a.IsPrivate, AgentDiscoverability: a.AgentDiscoverability}
	if a.KeyMetrics != nil {
		ms, err := keyMetrics(*a.KeyMetrics)
		if err != nil {
			return e, err
		}
		f.KeyMetrics = &ms
	}
	if c := a.Connections; c != nil {
		if len(*c) > workspace.MaxAgentConnections {
			return e, workspace.Invalid("agent.connections may list at most %d agents", workspace.MaxAgentConnections)
		}
		seen := make(map[string]bool, len(*c))
		for i, id := range *c {
			switch {
			case !workspace.PlausibleID(id):
				return e, workspace.Invalid("agent.connections[%d] must be an agent id of at most %d characters", i, workspace.MaxIDLength)
			case id == w.AgentID:
				return e, workspace.Invalid("agent.connections[%d]: an agent does not connect to itself", i)
			case seen[id]:
				return e, workspace.Invalid("agent.connections[%d] repeats an agent listed before", i)
			}
			seen[id] = true
		}
		f.Connections = c
	}
	e.Agent = f
	return e, nil
}

// keyMetrics validates an agent's key metric definitions: at most
// workspace.MaxAgentKeyMetrics, each with a name of its own and an
// aggregation of average or sum.
func keyMetrics(in []wireKeyMetric) ([]workspace.KeyMetricDefinition, error) {
	if len(in) > workspace.MaxAgentKeyMetrics {
		return nil, workspace.Invalid("agent.keyMetrics may list at most %d metrics", workspace.MaxAgentKeyMetrics)
	}
	out := make([]workspace.KeyMetricDefinition, 0, len(in))
	seen := make(map[string]bool, len(in))
	for i, m := range in {
		field := func(f string) string { return "agent.keyMetrics[" + strconv.Itoa(i) + "]." + f }
		if err := checkName(field("name"), m.Name); err != nil {
			return nil, err
		}
		if seen[m.Name] {
			return nil, workspace.Invalid("%s repeats a metric listed before", field("name"))
		}
		seen[m.Name] = true
		if err := checkPlainText(field("description"), m.Description); err != nil {
			return nil, err
		}
		if m.Measurement == nil {
			return nil, workspace.Invalid("%s is required", field("measurement"))
		}
		if err := checkPlainText(field("measurement.unit"), m.Measurement.Unit); err != nil {
			return nil, err
		}
		if !workspace.ValidAggregation(m.Measurement.Aggregation) {
			return nil, workspace.Invalid("%s must be one of: average, sum", field("measurement.aggregation"))
		}
		out = append(out, workspace.KeyMetricDefinition{Name: m.Name, Description: m.Description,
			Measurement: workspace.Measurement{Unit: m.Measurement.Unit, Aggregation: m.Measurement.Aggregation}})
	}
	return out, nil
}
