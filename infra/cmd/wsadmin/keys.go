package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

func (a *app) keys(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return usagef("keys: give a subcommand: issue, list, disable, enable or rotate")
	}
	switch sub, rest := args[0], args[1:]; sub {
	case "issue":
		return a.keysIssue(ctx, rest)
	case "list":
		return a.keysList(ctx, rest)
	case "disable":
		return a.keysSetDisabled(ctx, "disable", rest, true)
	case "enable":
		return a.keysSetDisabled(ctx, "enable", rest, false)
	case "rotate":
		return a.keysRotate(ctx, rest)
	default:
		return usagef("keys: unknown subcommand %q", sub)
	}
}

// required returns a usage error naming the first of the flags that is empty.
func required(cmd string, flags ...[2]string) error {
	for _, f := range flags {
		if strings.TrimSpace(f[1]) == "" {
			return usagef("%s: -%s is required", cmd, f[0])
		}
	}
	return nil
}

// parseScopes parses a comma-separated scope list; repeats collapse.
func parseScopes(s string) ([]workspace.Scope, error) {
	var scopes []workspace.Scope
	for part := range strings.SplitSeq(s, ",") {
		sc := workspace.Scope(strings.TrimSpace(part))
		if !sc.Valid() {
			return nil, usagef("keys issue: -scopes: %q is not one of read, write, invite", string(sc))
		}
		if !containsScope(scopes, sc) {
			scopes = append(scopes, sc)
		}
	}
	return scopes, nil
}

func containsScope(scopes []workspace.Scope, s workspace.Scope) bool {
	for _, x := range scopes {
		if x == s {
			return true
		}
	}
	return false
}

// expiry turns -expires or -days into an expiry time; nil when neither is given.
func expiry(cmd, expires string, days int, now time.Time) (*time.Time, error) {
	switch {
	case expires != "" && days != 0:
		return nil, usagef("%s: give -expires or -days, not both", cmd)
	case days < 0:
		return nil, usagef("%s: -days must be positive", cmd)
	case days > 0:
		t := now.Add(time.Duration(days) * 24 * time.Hour)
		return &t, nil
	case expires != "":
		t, err := time.Parse(time.RFC3339Nano, expires)
		if err != nil {
			return nil, usagef("%s: -expires %q is not an RFC 3339 timestamp (e.g. 2027-01-31T00:00:00Z)", cmd, expires)
		}
		if !t.After(now) {
			return nil, usagef("%s: -expires %s is not in the future", cmd, expires)
		}
		t = t.UTC()
		return &t, nil
	}
	return nil, nil
}

func (a *app) keysIssue(ctx context.Context, args []string) error {
	const cmd = "keys issue"
	fs := newFlagSet(cmd)
	ws := fs.String("workspace", "", "")
	user := fs.String("user", "", "")
	name := fs.String("name", "", "")
	scopeList := fs.String("scopes", "", "")
	team := fs.String("team", "", "")
	expires := fs.String("expires", "", "")
	days := fs.Int("days", 0, "")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	if err := required(cmd, [2]string{"workspace", *ws}, [2]string{"user", *user},
		[2]string{"name", *name}, [2]string{"scopes", *scopeList}); err != nil {
		return err
	}
	scopes, err := parseScopes(*scopeList)
	if err != nil {
		return err
	}
	exp, err := expiry(cmd, *expires, *days, a.now())
	if err != nil {
		return err
	}
	store, err := a.store(ctx)
	if err != nil {
		return err
	}
	return a.issue(ctx, store, workspace.APIKey{
		Name: *name, WorkspaceID: *ws, UserID: *user, Scopes: scopes, TeamID: *team, ExpiresAt: exp,
	})
}

// issue stores a new key like tmpl and prints its id and plaintext, the
// only time the plaintext is ever shown. The store checks, in the same
// transaction, that its owner is a member, that its team exists and that
// the workspace has room for it (at most workspace.MaxLiveKeys live keys).
func (a *app) issue(ctx context.Context, store *dynamo.Store, tmpl workspace.APIKey) error {
	now := a.now()
	id, err := workspace.SortableIDs{}.NewID(workspace.KeyIDPrefix)
	if err != nil {
		return fmt.Errorf("new key id: %w", err)
	}
	plaintext, err := workspace.NewKeyPlaintext()
	if err != nil {
		return fmt.Errorf("new key: %w", err)
	}
	k := tmpl
	k.ID, k.Hash, k.Disabled, k.CreatedAt = id, workspace.HashKey(plaintext), false, now
	switch err := store.CreateAPIKey(ctx, workspace.Unrecorded, k, now); {
	case errors.Is(err, workspace.ErrMemberNotFound):
		return fmt.Errorf("user %s is not a member of workspace %s", k.UserID, k.WorkspaceID)
	case errors.Is(err, workspace.ErrTeamNotFound):
		return fmt.Errorf("team %s does not exist in workspace %s", k.TeamID, k.WorkspaceID)
	case err != nil:
		return err
	}
	fmt.Fprintf(a.stdout, "id: %s\nkey: %s\n", k.ID, plaintext)
	fmt.Fprintf(a.stderr, "Issued %s (%q) for %s in %s: scopes %s, team %s, expires %s.\n"+
		"The key above is shown only now; only its hash is stored.\n",
		k.ID, k.Name, k.UserID, k.WorkspaceID, joinScopes(k.Scopes), orDash(k.TeamID), expiresText(k.ExpiresAt, now))
	return nil
}

func (a *app) keysList(ctx context.Context, args []string) error {
	const cmd = "keys list"
	fs := newFlagSet(cmd)
	ws := fs.String("workspace", "", "")
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
	keys, err := store.APIKeys(ctx, *ws)
	if err != nil {
		return err
	}
	now := a.now()
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tUSER\tSCOPES\tTEAM\tEXPIRES\tDISABLED")
	for _, k := range keys {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%t\n", k.ID, k.Name, k.UserID, joinScopes(k.Scopes),
			orDash(k.TeamID), expiresText(k.ExpiresAt, now), k.Disabled)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(keys) == 0 {
		fmt.Fprintf(a.stderr, "workspace %s has no API keys\n", *ws)
	}
	return nil
}

// idFlags parses the -workspace and -id flags every single-key subcommand takes.
func idFlags(cmd string, args []string, more func(fs *flag.FlagSet)) (ws, id string, err error) {
	fs := newFlagSet(cmd)
	fs.StringVar(&ws, "workspace", "", "")
	fs.StringVar(&id, "id", "", "")
	if more != nil {
		more(fs)
	}
	if err := parse(fs, args); err != nil {
		return "", "", err
	}
	if err := noArgs(fs); err != nil {
		return "", "", err
	}
	return ws, id, required(cmd, [2]string{"workspace", ws}, [2]string{"id", id})
}

func (a *app) keysSetDisabled(ctx context.Context, verb string, args []string, disabled bool) error {
	ws, id, err := idFlags("keys "+verb, args, nil)
	if err != nil {
		return err
	}
	store, err := a.store(ctx)
	if err != nil {
		return err
	}
	if _, err := store.UpdateAPIKey(ctx, workspace.Unrecorded, ws, id, workspace.KeyChange{Disabled: &disabled}, a.now()); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "%sd %s\n", verb, id)
	return nil
}

func (a *app) keysRotate(ctx context.Context, args []string) error {
	const cmd = "keys rotate"
	var days int
	ws, id, err := idFlags(cmd, args, func(fs *flag.FlagSet) { fs.IntVar(&days, "days", 0, "") })
	if err != nil {
		return err
	}
	exp, err := expiry(cmd, "", days, a.now())
	if err != nil {
		return err
	}
	store, err := a.store(ctx)
	if err != nil {
		return err
	}
	keys, err := store.APIKeys(ctx, ws)
	if err != nil {
		return err
	}
	var old *workspace.APIKey
	for i := range keys {
		if keys[i].ID == id {
			old = &keys[i]
		}
	}
	if old == nil {
		return fmt.Errorf("API key %s not found in workspace %s", id, ws)
	}
	if old.ExpiresAt != nil && exp == nil {
		return usagef("%s: key %s expires (%s); give -days N for its replacement", cmd, id, workspace.FormatTime(*old.ExpiresAt))
	}
	if err := a.issue(ctx, store, workspace.APIKey{
		Name: old.Name, WorkspaceID: ws, UserID: old.UserID, Scopes: old.Scopes, TeamID: old.TeamID, ExpiresAt: exp,
	}); err != nil {
		return err
	}
	disabled := true
	if _, err := store.UpdateAPIKey(ctx, workspace.Unrecorded, ws, id, workspace.KeyChange{Disabled: &disabled}, a.now()); err != nil {
		return fmt.Errorf("the new key is issued, but the old key %s is still enabled: %w; disable it with: wsadmin keys disable -workspace %s -id %s", id, err, ws, id)
	}
	fmt.Fprintf(a.stdout, "disabled %s\n", id)
	return nil
}

func joinScopes(scopes []workspace.Scope) string {
	s := make([]string, len(scopes))
	for i, sc := range scopes {
		s[i] = string(sc)
	}
	return strings.Join(s, ",")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// expiresText renders an expiry for operators.
func expiresText(t *time.Time, now time.Time) string {
	switch {
	case t == nil:
		return "never"
	case !now.Before(*t):
		return workspace.FormatTime(*t) + " (expired)"
	}
	return workspace.FormatTime(*t)
}
