package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The ingest dead-letter queue's redrive moves back only what cannot count
// twice: redrive-plan takes what aws sqs receive-message printed and names each
// message "move" or "hold", reading no table.
func TestRedrivePlanSortsTheDeadLetters(t *testing.T) {
	t.Setenv("TABLE_NAME", "")
	t.Setenv("DYNAMODB_ENDPOINT", "")
	recent := time.Now().UTC().Add(-24 * time.Hour).Format(time.RFC3339)
	type msg struct{ MessageId, ReceiptHandle, Body string }
	in, _ := json.Marshal(map[string][]msg{"Messages": {
		{"m-recent", "r1", `{"type": "credits.used", "id": "e1", "workspaceId": "ws_a", "agentId": "ag_a", "credits": 2, "occurredAt": "` + recent + `"}`},
		{"m-old", "r2", `{"type": "credits.used", "id": "e2", "workspaceId": "ws_a", "agentId": "ag_a", "credits": 2, "occurredAt": "2020-01-01T00:00:00Z"}`},
		{"m-bad", "r3", `not json`},
	}})
	file := filepath.Join(t.TempDir(), "batch.json")
	if err := os.WriteFile(file, in, 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "redrive-plan", "-in", file)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 3 || lines[0] != "move\tm-recent" || !strings.HasPrefix(lines[1], "hold\tm-old\t") || !strings.HasPrefix(lines[2], "hold\tm-bad\t") {
		t.Errorf("plan:\n%s", stdout)
	}
	if code, _, stderr := runCLI(t, "redrive-plan", "-in", file, "extra"); code != 2 {
		t.Errorf("an argument: exit %d, stderr %s", code, stderr)
	}
}
