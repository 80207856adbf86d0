// Package config reads the functions' settings from their environment, once,
// at cold start.
package config

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"time"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Config is every setting a function reads from its environment.
type Config struct {
	// TableName is the single table (TABLE_NAME, required).
	TableName string
	// DynamoDBEndpoint overrides the DynamoDB address (DYNAMODB_ENDPOINT; empty in AWS).
	DynamoDBEndpoint string
	// MailFrom is the SES sender (MAIL_FROM); empty records e-mail instead of sending it.
	MailFrom string
	// InviteAcceptURL is the base of invitation links (INVITE_ACCEPT_URL).
	InviteAcceptURL string
	// InviteRetention is how long expired invitations stay listed
	// (INVITE_RETENTION_DAYS, whole days; default 180).
	InviteRetention time.Duration
	// AuditRetention is how long audit log entries are kept
	// (AUDIT_RETENTION_DAYS, whole days; default 400).
	AuditRetention time.Duration
	// EventBusName is the EventBridge bus the events function publishes
	// limit events to (EVENT_BUS_NAME); empty records them instead.
	EventBusName string
	// WebhookQueueURL is the SQS queue of webhook deliveries
	// (WEBHOOK_QUEUE_URL): the events function and the test route send to it.
	WebhookQueueURL string
	// WebhookLocal allows webhook URLs to loopback hosts over http
	// (WEBHOOK_ALLOW_LOOPBACK=true; make run only, never in AWS).
	WebhookLocal bool
}

// DefaultInviteAcceptURL is used when INVITE_ACCEPT_URL is not set.
const DefaultInviteAcceptURL = "https://app.example.com/invitations/accept"

// FromEnv reads the configuration; it returns an error when TABLE_NAME is not
// set or INVITE_RETENTION_DAYS or AUDIT_RETENTION_DAYS is not a positive
// number.
func FromEnv() (Config, error) {
	c := Config{
		TableName:        os.Getenv("TABLE_NAME"),
		DynamoDBEndpoint: os.Getenv("DYNAMODB_ENDPOINT"),
		MailFrom:         os.Getenv("MAIL_FROM"),
		InviteAcceptURL:  os.Getenv("INVITE_ACCEPT_URL"),
		EventBusName:     os.Getenv("EVENT_BUS_NAME"),
		WebhookQueueURL:  os.Getenv("WEBHOOK_QUEUE_URL"),
		WebhookLocal:     os.Getenv("WEBHOOK_ALLOW_LOOPBACK") == "true",
	}
	if c.TableName == "" {
		return Config{}, errors.New("TABLE_NAME is not set")
	}
	if c.InviteAcceptURL == "" {
		c.InviteAcceptURL = DefaultInviteAcceptURL
	}
	var err error
	if c.InviteRetention, err = daysFromEnv("INVITE_RETENTION_DAYS", workspace.DefaultInviteRetention); err != nil {
		return Config{}, err
	}
	if c.AuditRetention, err = daysFromEnv("AUDIT_RETENTION_DAYS", workspace.DefaultAuditRetention); err != nil {
		return Config{}, err
	}
	return c, nil
}

// daysFromEnv reads the environment variable name as a whole number of days,
// at least 1; def when it is not set.
func daysFromEnv(name string, def time.Duration) (time.Duration, error) {
	s := os.Getenv(name)
	if s == "" {
		return def, nil
	}
	days, err := strconv.Atoi(s)
	if err != nil || days < 1 {
		return 0, fmt.Errorf("%s must be a whole number of days, at least 1", name)
	}
	return time.Duration(days) * 24 * time.Hour, nil
}

// UseJSONLogs makes slog write JSON lines to stdout, the format the functions'
// CloudWatch log groups are configured for, through NewLogHandler.
func UseJSONLogs() {
	slog.SetDefault(slog.New(NewLogHandler(os.Stdout)))
}

// NewLogHandler returns the functions' JSON log handler, writing to w. No log
// line may contain key-shaped text (docs/bounds.md), whatever a request put in a
// path, a field or a value that ends up logged, so the handler redacts it
// (workspace.RedactKeys) from the message, every attribute key and group
// name, every string, error and other value, at any depth of groups.
func NewLogHandler(w io.Writer) slog.Handler {
	return redactGroups{slog.NewJSONHandler(w, &slog.HandlerOptions{ReplaceAttr: redactAttr})}
}

// redactAttr is the handler's ReplaceAttr: it sees every attribute that is not
// a group (the message and those inside groups included), resolved.
func redactAttr(_ []string, a slog.Attr) slog.Attr {
	a.Key = workspace.RedactKeys(a.Key)
	switch a.Value.Kind() {
	case slog.KindString:
		a.Value = slog.StringValue(workspace.RedactKeys(a.Value.String()))
	case slog.KindAny:
		switch v := a.Value.Any().(type) {
		case error: // written as its message
			a.Value = slog.StringValue(workspace.RedactKeys(v.Error()))
		default: // written as its JSON; key characters need no escaping there
			if b, err := json.Marshal(v); err == nil && workspace.ContainsKey(string(b)) {
				a.Value = slog.AnyValue(json.RawMessage(workspace.RedactKeys(string(b))))
			}
		}
	}
	return a
}

// redactGroups redacts the names of groups, which ReplaceAttr never sees.
type redactGroups struct{ slog.Handler }

// WithGroup opens a group whose name is redacted.
func (h redactGroups) WithGroup(name string) slog.Handler {
	return redactGroups{h.Handler.WithGroup(workspace.RedactKeys(name))}
}

// WithAttrs adds attributes whose group names are redacted.
func (h redactGroups) WithAttrs(attrs []slog.Attr) slog.Handler {
	return redactGroups{h.Handler.WithAttrs(redactGroupNames(attrs))}
}

// Handle writes r with its group names redacted.
func (h redactGroups) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(redactGroupNames([]slog.Attr{a})...)
		return true
	})
	return h.Handler.Handle(ctx, out)
}

// redactGroupNames returns attrs with the names of groups, at any depth,
// redacted; the other attributes are left to redactAttr.
func redactGroupNames(attrs []slog.Attr) []slog.Attr {
	out := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		if a.Value.Kind() == slog.KindGroup {
			a = slog.Attr{Key: workspace.RedactKeys(a.Key), Value: slog.GroupValue(redactGroupNames(a.Value.Group())...)}
		}
		out[i] = a
	}
	return out
}
