package config_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/agentplatform/workspaceapi/shared/config"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

const key = "wk_demoAdminKey0000000000000000000000000001"

// keyValuer logs as a key: the handler sees it resolved.
type keyValuer struct{}

func (keyValuer) LogValue() slog.Value { return slog.StringValue("token " + key) }

func TestLogLinesNeverHoldAKey(t *testing.T) {
	tests := []struct {
		rule string
		log  func(l *slog.Logger)
	}{
		{"in the message", func(l *slog.Logger) { l.Info("key " + key + " refused") }},
		{"in a string value", func(l *slog.Logger) { l.Info("m", "path", "/agents/"+key) }},
		{"in an error value", func(l *slog.Logger) { l.Error("m", "error", errors.New("lookup "+key+": failed")) }},
		{"in a wrapped error value", func(l *slog.Logger) { l.Error("m", "error", errors.Join(errors.New("x"), errors.New(key))) }},
		{"in an attribute key", func(l *slog.Logger) { l.Info("m", key, 1) }},
		{"in a value inside a group", func(l *slog.Logger) { l.Info("m", slog.Group("req", slog.Group("body", "field", key))) }},
		{"in a key inside a group", func(l *slog.Logger) { l.Info("m", slog.Group("req", key, "x")) }},
		{"in a group's name", func(l *slog.Logger) { l.Info("m", slog.Group(key, "a", 1)) }},
		{"in a nested group's name", func(l *slog.Logger) { l.Info("m", slog.Group("req", slog.Group(key, "a", 1))) }},
		{"in a WithGroup name", func(l *slog.Logger) { l.WithGroup(key).Info("m", "a", 1) }},
		{"in WithAttrs", func(l *slog.Logger) { l.With("caller", key, slog.Group(key, key, key)).Info("m") }},
		{"in a value under WithGroup", func(l *slog.Logger) { l.WithGroup("g").Info("m", "v", key) }},
		{"in a slice value", func(l *slog.Logger) { l.Info("m", "ids", []string{"a", key}) }},
		{"in a struct value", func(l *slog.Logger) { l.Info("m", "req", struct{ Email, Note string }{"a@b.example", key}) }},
		{"in a LogValuer", func(l *slog.Logger) { l.Info("m", "v", keyValuer{}) }},
	}
	for _, tc := range tests {
		t.Run(tc.rule, func(t *testing.T) {
			var buf bytes.Buffer
			tc.log(slog.New(config.NewLogHandler(&buf)))
			line := buf.String()
			if workspace.ContainsKey(line) {
				t.Fatalf("log line holds a key: %s", line)
			}
			if !strings.Contains(line, workspace.RedactedKey) {
				t.Errorf("log line %s does not show where the key was redacted", line)
			}
			if !json.Valid(buf.Bytes()) {
				t.Errorf("log line is not JSON: %s", line)
			}
		})
	}
}

func TestLogLinesKeepEverythingElse(t *testing.T) {
	var buf bytes.Buffer
	l := slog.New(config.NewLogHandler(&buf))
	l.WithGroup("g").Error("request failed", "count", 3, "ok", true, "path", "/wk_/x", "error", errors.New("boom"),
		"ids", []string{"a"}, slog.Group("inner", "name", "n"))
	var got map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("log line %s: %v", buf.String(), err)
	}
	g, _ := got["g"].(map[string]any)
	want := map[string]any{"count": 3.0, "ok": true, "path": "/wk_/x", "error": "boom", "ids": []any{"a"},
		"inner": map[string]any{"name": "n"}}
	if got["msg"] != "request failed" || got["level"] != "ERROR" || len(g) != len(want) {
		t.Fatalf("log line = %s", buf.String())
	}
	for k, v := range want {
		if gotV, _ := json.Marshal(g[k]); string(gotV) != mustJSON(v) {
			t.Errorf("%s = %s, want %s", k, gotV, mustJSON(v))
		}
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
