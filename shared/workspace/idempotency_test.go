package workspace_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

func TestAnIdempotencyKeyIsOneTo255VisibleASCIICharacters(t *testing.T) {
	tests := []struct {
		name, key string
		ok        bool
	}{
		{"one character", "k", true},
		{"255 characters", strings.Repeat("k", 255), true},
		{"every visible ASCII character", "!\"#$%&'()*+,-./0123456789:;<=>?@AZ[\\]^_`az{|}~", true},
		{"a UUID", "7f3c2a9e-5b1d-4c8e-9a6f-2d4b8e1c0a57", true},
		{"empty", "", false},
		{"256 characters", strings.Repeat("k", 256), false},
		{"a space", "a b", false},
		{"a tab", "a\tb", false},
		{"a newline", "a\nb", false},
		{"DEL", "a\x7fb", false},
		{"NUL", "a\x00b", false},
		{"outside ASCII", "clé", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := workspace.CheckIdempotencyKey(tc.key)
			if got := err == nil; got != tc.ok {
				t.Errorf("CheckIdempotencyKey(%q) = %v, want ok %v", tc.key, err, tc.ok)
			}
			if err != nil && (workspace.KindOf(err) != workspace.KindInvalid || strings.Contains(err.Error(), tc.key) && tc.key != "") {
				t.Errorf("error %v: want a KindInvalid error that does not repeat the key", err)
			}
		})
	}
}

func TestARequestFingerprintTellsEveryPartApart(t *testing.T) {
	base := workspace.RequestFingerprint("POST", "/a", "x=1", []byte(`{}`))
	if again := workspace.RequestFingerprint("POST", "/a", "x=1", []byte(`{}`)); again != base {
		t.Errorf("the same request: %s, want %s", again, base)
	}
	others := map[string]string{
		"method":                         workspace.RequestFingerprint("PUT", "/a", "x=1", []byte(`{}`)),
		"path":                           workspace.RequestFingerprint("POST", "/b", "x=1", []byte(`{}`)),
		"query":                          workspace.RequestFingerprint("POST", "/a", "x=2", []byte(`{}`)),
		"body":                           workspace.RequestFingerprint("POST", "/a", "x=1", []byte(`{ }`)),
		"a part moved across a boundary": workspace.RequestFingerprint("POST", "/ax=1", "", []byte(`{}`)),
	}
	for name, fp := range others {
		if fp == base {
			t.Errorf("another %s has the same fingerprint", name)
		}
	}
}

func TestARepeatGetsTheAnswer409WhileRunningOr422ForAnotherRequest(t *testing.T) {
	answer := workspace.IdempotentAnswer{Status: 201, ContentType: "application/json", Body: []byte(`{"id":"x"}`)}
	tests := []struct {
		name    string
		record  workspace.IdempotencyRecord
		fp      string
		wantErr error
	}{
		{"done, same request: the answer", workspace.IdempotencyRecord{Fingerprint: "f", Done: true, Answer: answer}, "f", nil},
		{"running, same request: 409", workspace.IdempotencyRecord{Fingerprint: "f"}, "f", workspace.ErrIdempotencyKeyInUse},
		{"done, another request: 422", workspace.IdempotencyRecord{Fingerprint: "f", Done: true, Answer: answer}, "g", workspace.ErrIdempotencyKeyReused},
		{"running, another request: 422", workspace.IdempotencyRecord{Fingerprint: "f"}, "g", workspace.ErrIdempotencyKeyReused},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.record.Repeat(tc.fp)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Repeat error = %v, want %v", err, tc.wantErr)
			}
			if err == nil && (got.Status != answer.Status || string(got.Body) != string(answer.Body)) {
				t.Errorf("Repeat = %+v, want %+v", got, answer)
			}
		})
	}
	if k := workspace.KindOf(workspace.ErrIdempotencyKeyReused); k != workspace.KindUnprocessable {
		t.Errorf("reused key kind %v, want KindUnprocessable", k)
	}
	if k := workspace.KindOf(workspace.ErrIdempotencyKeyInUse); k != workspace.KindConflict {
		t.Errorf("key in use kind %v, want KindConflict", k)
	}
}
