package main

import (
	"testing"
)

// The command sees the endpoint, its exit status is withdynamodb's, and
// an endpoint already set is passed on as it is.
func TestTheCommandRunsWithAnEndpointAndItsStatusIsKept(t *testing.T) {
	tests := []struct {
		name, endpoint, script string
		want                   int
	}{
		{"an instance is started when none is set", "", `case "$DYNAMODB_ENDPOINT" in http://127.0.0.1:*) exit 0;; *) exit 9;; esac`, 0},
		{"a set endpoint is used as it is", "http://127.0.0.1:1", `[ "$DYNAMODB_ENDPOINT" = http://127.0.0.1:1 ] || exit 9; exit 3`, 3},
		{"a command that cannot start is status 1", "http://127.0.0.1:1", "", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("DYNAMODB_ENDPOINT", tc.endpoint)
			args := []string{"sh", "-c", tc.script}
			if tc.script == "" {
				args = []string{"/nonexistent/command"}
			}
			if got := run(args); got != tc.want {
				t.Errorf("status %d, want %d", got, tc.want)
			}
		})
	}
}
