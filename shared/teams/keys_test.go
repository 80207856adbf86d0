package teams_test

import (
	"net/http"
	"strings"
	"testing"
)

// docs/bounds.md: no response
// body contains key-shaped text. A key-shaped team name is stored and echoed
// in the 201 (and in every later team read).
func TestAKeyShapedTeamNameIsNeverEchoed(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	res := env.Do(t, http.MethodPost, "/workspaceapi/teams", keyAdmin, `{"name": "wk_abcdefghijklmnopqrstuvwxyz0123456789AB"}`)
	if strings.Contains(string(res.Body), "wk_a") {
		t.Errorf("POST /workspaceapi/teams: %d %s\nechoes key-shaped text (want 400)", res.Status, res.Body)
	}
}
