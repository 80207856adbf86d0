package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
)

// An empty table (a new stack) migrates at once; -status reads the
// progress the run recorded.
func TestMigrateRunsTheStepsAndReportsThem(t *testing.T) {
	ctx := context.Background()
	endpoint := dynamolocal.Endpoint(t)
	client := dynamolocal.NewClientAt(t, endpoint, nil)
	table := dynamolocal.NewTable(t, client)
	wsadmin := func(args ...string) (string, int) {
		var out, errOut bytes.Buffer
		code := run(ctx, append([]string{"-table", table, "-endpoint", endpoint}, args...), &out, &errOut)
		return out.String() + errOut.String(), code
	}
	out, code := wsadmin("migrate", "-status")
	if code != 0 || !strings.Contains(out, "api-key-references") || !strings.Contains(out, "pending") {
		t.Fatalf("status before: %d %s", code, out)
	}
	out, code = wsadmin("migrate", "-segments", "2")
	if code != 0 || !strings.Contains(out, "every step done: the table has layout 4") {
		t.Fatalf("migrate: %d %s", code, out)
	}
	out, code = wsadmin("migrate", "-status")
	if code != 0 || strings.Contains(out, "pending") || strings.Count(out, "done") != 4 {
		t.Fatalf("status after: %d %s", code, out)
	}
	out, code = wsadmin("migrate", "-workspace", "ws_none")
	if code != 0 || !strings.Contains(out, "workspace ws_none: 0 items written") {
		t.Fatalf("one workspace: %d %s", code, out)
	}
	for _, bad := range [][]string{{"migrate", "-status", "-workspace", "w"}, {"migrate", "-for", "0s"}, {"migrate", "-segments", "0"}} {
		if out, code := wsadmin(bad...); code != 2 {
			t.Errorf("%v: %d %s, want a usage error", bad, code, out)
		}
	}
	if out, code := wsadmin("migrate", "-h"); code != 0 || !strings.Contains(out, "migrate -status") {
		t.Errorf("help: %d %s", code, out)
	}
}
