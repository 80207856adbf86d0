package tags_test

import (
	"net/http"
	"strings"
	"testing"
)

// docs/bounds.md: no response
// body contains key-shaped text (wk_ followed by key characters), whatever
// the request put in a value. A key-shaped tag is stored and echoed back in
// the batch result (and in every later read of the entity).
func TestAKeyShapedTagIsNeverEchoed(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	const keyShaped = "wk_abcdefghijklmnopqrstuvwxyz0123456789AB"
	for _, path := range []string{memberTags, agentTags, teamTags} {
		id := map[string]string{memberTags: "u_admin", agentTags: "ag_a", teamTags: "team_a"}[path]
		res := env.Do(t, http.MethodPost, path, keyAdmin, `{"ids": ["`+id+`"], "tags": ["`+keyShaped+`"]}`)
		if strings.Contains(string(res.Body), "wk_a") {
			t.Errorf("POST %s: %d %s\nechoes key-shaped text (want 400 naming tags[0], never the value)", path, res.Status, res.Body)
		}
	}
}
