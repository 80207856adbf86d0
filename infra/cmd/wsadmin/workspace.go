package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/agentplatform/workspaceapi/infra/fixture"
	"github.com/agentplatform/workspaceapi/shared/jsondoc"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

func (a *app) workspace(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return usagef("workspace: give a subcommand: create or export")
	}
	switch sub, rest := args[0], args[1:]; sub {
	case "create":
		return a.workspaceCreate(ctx, rest)
	case "export":
		return a.workspaceExport(ctx, rest)
	default:
		return usagef("workspace: unknown subcommand %q", sub)
	}
}

// settings are a workspace's own settings as -settings FILE gives them: the
// workspace fields of the fixture format (docs/fixture-format.md) besides
// its id and contents.
type settings struct {
	Name                    string   `json:"name"`
	Seats                   int      `json:"seats"`
	TeamSettingsEnabled     bool     `json:"teamSettingsEnabled"`
	AllowedEmailDomains     []string `json:"allowedEmailDomains"`
	DefaultDailyCreditLimit *float64 `json:"defaultDailyCreditLimit"`
}

// maxSettingsFile bounds what -settings reads.
const maxSettingsFile = 64 << 10

// The first admin key's lifetime in days: as the API's keys (1 to 365, 90 by default).
const (
	defaultKeyDays = 90
	maxKeyDays     = 365
)

// settingFlags are the flags -settings FILE stands for.
var settingFlags = []string{"name", "seats", "domains", "team-settings", "default-daily-limit"}

// workspaceCreate creates a workspace and its first admin through the
// provisioning events' code (dynamo.Store.ApplyWorkspaceUpsert and
// ApplyMemberUpsert, as creations: workspace.Provision.Create), then the
// admin's API key: three transactions, the first of which fails, writing
// nothing, when the workspace exists. The key's plaintext is printed once;
// only its hash is stored.
func (a *app) workspaceCreate(ctx context.Context, args []string) error {
	const cmd = "workspace create"
	fs := newFlagSet(cmd)
	id := fs.String("id", "", "")
	settingsFile := fs.String("settings", "", "")
	name := fs.String("name", "", "")
	seats := fs.Int("seats", 0, "")
	domains := fs.String("domains", "", "")
	teamSettings := fs.Bool("team-settings", false, "")
	dailyLimit := fs.String("default-daily-limit", "", "")
	adminID := fs.String("admin-id", "", "")
	adminEmail := fs.String("admin-email", "", "")
	adminName := fs.String("admin-name", "", "")
	keyName := fs.String("key-name", "Admin", "")
	days := fs.Int("days", defaultKeyDays, "")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	if err := required(cmd, [2]string{"id", *id}, [2]string{"admin-id", *adminID},
		[2]string{"admin-email", *adminEmail}, [2]string{"admin-name", *adminName}, [2]string{"key-name", *keyName}); err != nil {
		return err
	}
	if *days < 1 || *days > maxKeyDays {
		return usagef("%s: -days must be 1 to %d", cmd, maxKeyDays)
	}
	var s settings
	if *settingsFile != "" {
		given := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
		for _, n := range settingFlags {
			if given[n] {
				return usagef("%s: give the settings in -settings FILE or as flags, not both (-%s)", cmd, n)
			}
		}
		var err error
		if s, err = readSettings(*settingsFile); err != nil {
			return err
		}
	} else {
		if err := required(cmd, [2]string{"name", *name}); err != nil {
			return err
		}
		s = settings{Name: *name, Seats: *seats, TeamSettingsEnabled: *teamSettings, AllowedEmailDomains: splitList(*domains)}
		if *dailyLimit != "" {
			v, err := strconv.ParseFloat(*dailyLimit, 64)
			if err != nil {
				return usagef("%s: -default-daily-limit %q is not a number", cmd, *dailyLimit)
			}
			s.DefaultDailyCreditLimit = &v
		}
	}
	if s.Seats < 1 {
		return usagef("%s: the workspace needs at least 1 seat (-seats): its first admin takes one", cmd)
	}
	if a.table == "" {
		return usagef("no table: give -table NAME or set TABLE_NAME")
	}

	now := a.now()
	keyID, err := workspace.SortableIDs{}.NewID(workspace.KeyIDPrefix)
	if err != nil {
		return fmt.Errorf("new key id: %w", err)
	}
	plaintext, err := workspace.NewKeyPlaintext()
	if err != nil {
		return fmt.Errorf("new key: %w", err)
	}
	expires := now.Add(time.Duration(*days) * 24 * time.Hour)
	w := fixture.Workspace{
		ID: *id, Name: s.Name, Seats: s.Seats, TeamSettingsEnabled: s.TeamSettingsEnabled,
		AllowedEmailDomains: s.AllowedEmailDomains, DefaultDailyCreditLimit: s.DefaultDailyCreditLimit,
		Members: []fixture.Member{{
			ID: *adminID, Email: *adminEmail, Name: *adminName, Role: string(workspace.RoleAdmin), Tags: []string{},
			JoinedAt: workspace.FormatTime(now),
		}},
		APIKeys: []fixture.APIKey{{
			ID: &keyID, Key: plaintext, Name: *keyName, UserID: *adminID,
			Scopes:    []string{string(workspace.ScopeRead), string(workspace.ScopeWrite), string(workspace.ScopeInvite)},
			ExpiresAt: workspace.FormatTime(expires),
		}},
	}
	// The fixture's rules are the workspace's: ids, e-mails, domains, limits.
	if err := (fixture.File{Workspaces: []fixture.Workspace{w}}).Validate(); err != nil {
		return usagef("%s: %v", cmd, err)
	}
	store, err := a.store(ctx)
	if err != nil {
		return err
	}
	// The workspace and its admin are created as the platform's
	// provisioning events create them, as creations (version 0, so the
	// platform's first events apply over them) recorded by the platform
	// actor: the audit log has no operator actor.
	newEvent := func() (workspace.Provision, error) {
		eventID, err := workspace.SortableIDs{}.NewID(operatorEventPrefix)
		return workspace.Provision{EventID: eventID, WorkspaceID: *id, Create: true}, err
	}
	p, err := newEvent()
	if err != nil {
		return fmt.Errorf("new event id: %w", err)
	}
	err = store.ApplyWorkspaceUpsert(ctx, p, workspace.WorkspaceFields{
		Name: &s.Name, Seats: &s.Seats, TeamSettingsEnabled: &s.TeamSettingsEnabled, AllowedEmailDomains: &s.AllowedEmailDomains,
		DefaultDailyCreditLimit: workspace.NullIfNil(s.DefaultDailyCreditLimit),
	}, now)
	switch {
	case errors.Is(err, workspace.ErrAlreadyProvisioned):
		return fmt.Errorf("workspace %s already exists in table %s; nothing was written", *id, a.table)
	case err != nil:
		return fmt.Errorf("create workspace %s: %w", *id, err)
	}
	admin := w.Members[0]
	role, joined := workspace.RoleAdmin, now
	if p, err = newEvent(); err != nil {
		return fmt.Errorf("new event id: %w", err)
	}
	if err := store.ApplyMemberUpsert(ctx, p, admin.ID, workspace.MemberFields{
		Email: &admin.Email, Name: &admin.Name, Role: &role, JoinedAt: &joined,
	}, now); err != nil {
		return fmt.Errorf("workspace %s was created, its admin %s was not: %w; add the admin with a member.upserted event", *id, admin.ID, err)
	}
	key := workspace.APIKey{
		ID: keyID, Hash: workspace.HashKey(plaintext), Name: *keyName, WorkspaceID: *id, UserID: admin.ID,
		Scopes:    []workspace.Scope{workspace.ScopeRead, workspace.ScopeWrite, workspace.ScopeInvite},
		CreatedAt: now, ExpiresAt: &expires,
	}
	if err := store.CreateAPIKey(ctx, workspace.PlatformActor(), key, now); err != nil {
		return fmt.Errorf("workspace %s and its admin %s were created, the admin's key was not: %w; issue one with wsadmin keys issue", *id, admin.ID, err)
	}
	fmt.Fprintf(a.stdout, "workspace: %s\nadmin: %s\nid: %s\nkey: %s\n", *id, *adminID, keyID, plaintext)
	fmt.Fprintf(a.stderr, "Created workspace %s (%q, %d seats) with admin %s and the admin's key %s (read, write, invite; expires %s).\n"+
		"The key above is shown only now; only its hash is stored.\n"+
		"On the shared platform, register the workspace once: wsadmin usage-key -workspace %s -stack STACK\n",
		*id, s.Name, s.Seats, *adminID, keyID, workspace.FormatTime(expires), *id)
	return nil
}

// readSettings reads and strictly decodes a -settings file (at most
// maxSettingsFile bytes).
func readSettings(path string) (settings, error) {
	f, err := os.Open(path)
	if err != nil {
		return settings{}, fmt.Errorf("-settings: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSettingsFile+1))
	if err != nil {
		return settings{}, fmt.Errorf("-settings %s: %w", path, err)
	}
	if len(data) > maxSettingsFile {
		return settings{}, fmt.Errorf("-settings %s: larger than %d bytes", path, maxSettingsFile)
	}
	var s settings
	if err := jsondoc.Unmarshal(data, &s); err != nil {
		return settings{}, fmt.Errorf("-settings %s: %s", path, workspace.RedactKeys(err.Error()))
	}
	return s, nil
}

// operatorEventPrefix begins the event ids of wsadmin's creations: each
// is new, so a creation is never taken for an earlier delivery.
const operatorEventPrefix = "wsadmin_"

// splitList splits a comma-separated list; empty parts are dropped.
func splitList(s string) []string {
	out := []string{}
	for part := range strings.SplitSeq(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// workspaceExport writes a live workspace as a fixture that load-fixture
// takes back, without its API keys (fixture.Export).
func (a *app) workspaceExport(ctx context.Context, args []string) error {
	const cmd = "workspace export"
	fs := newFlagSet(cmd)
	ws := fs.String("workspace", "", "")
	outPath := fs.String("o", "", "")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	if err := required(cmd, [2]string{"workspace", *ws}); err != nil {
		return err
	}
	store, err := a.store(ctx)
	if err != nil {
		return err
	}
	w, err := fixture.Export(ctx, store, *ws, a.now())
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(fixture.File{Workspaces: []fixture.Workspace{w}}, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if *outPath == "" {
		_, err = a.stdout.Write(data)
		return err
	}
	// A file that exists is not written over.
	f, err := os.OpenFile(*outPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "exported workspace %s to %s: %d members, %d teams, %d agents, %d invitations (no API keys)\n",
		*ws, *outPath, len(w.Members), len(w.Teams), len(w.Agents), len(w.Invites))
	return nil
}
