package credits_test

import (
	"net/http"
	"testing"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// A write that loses every race to other requests (here every transaction
// is cancelled, as DynamoDB cancels transactions that meet) gives up with a
// 503 the caller may retry, never a 500; in a batch, the id fails alone with
// the same message.
func TestAWriteThatKeepsLosingRacesAsksForARetry(t *testing.T) {
	t.Parallel()
	env := newEnv(t, apitest.Options{Conflicts: &dynamolocal.ConflictInjector{Rate: 1}})
	busy := workspace.ErrBusy.Error()

	res := env.Do(t, http.MethodPut, teamLimitPath("team_a"), keyAdmin, `{"monthlyCreditLimit": 50}`)
	var body struct{ Error string }
	res.JSON(t, &body)
	if res.Status != http.StatusServiceUnavailable || body.Error != busy {
		t.Errorf("team limit: %d %s, want 503 %q", res.Status, res.Body, busy)
	}

	res = env.Do(t, http.MethodPost, "/workspaceapi/agents/credit-limits", keyAdmin, `{"ids": ["ag_daily"], "dailyCreditLimit": 7}`)
	var batch struct {
		Results []struct {
			Success bool
			Error   string
		}
	}
	res.JSON(t, &batch)
	if res.Status != http.StatusOK || len(batch.Results) != 1 || batch.Results[0].Success || batch.Results[0].Error != busy {
		t.Errorf("credit limits: %d %s, want 200 with ag_daily failing with %q", res.Status, res.Body, busy)
	}
}
