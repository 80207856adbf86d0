package agentdata_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

func TestPrivateAgentsAnswer403ExceptPromotionRequests(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	for _, path := range []string{"", "/key-metrics", "/connected-agents", "/diary", "/chats/chat_1"} {
		res := get(t, env, "/workspaceapi/agents/ag_private"+path, keyRead, http.StatusForbidden, nil)
		if !strings.Contains(res.Error(t), "restricted or personal") {
			t.Errorf("%s: %s", path, res.Body)
		}
	}
	get(t, env, "/agents/ag_private", keyRead, http.StatusForbidden, nil)
	var body struct{ PromotionRequests []map[string]any }
	get(t, env, "/workspaceapi/agents/ag_private/promotion-requests", keyRead, http.StatusOK, &body)
	if len(body.PromotionRequests) != 1 || body.PromotionRequests[0]["id"] != "pr_1" || body.PromotionRequests[0]["requestedAt"] != "2026-11-01T10:00:00.000Z" {
		t.Errorf("promotion requests = %v", body.PromotionRequests)
	}
}

func TestAgentsOutsideTheKeysScopeAreNotFound(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	tests := []struct{ name, key, path string }{
		{"another team's agent for a team-scoped key", keyTeamA, "/workspaceapi/agents/ag_b1/key-metrics"},
		{"another team's agent's promotion requests", keyTeamA, "/workspaceapi/agents/ag_b1/promotion-requests"},
		{"another workspace's agent", keyOther, "/workspaceapi/agents/ag_main"},
		{"an unknown agent", keyRead, "/workspaceapi/agents/ag_nobody/diary"},
		{"an id over 256 characters", keyRead, "/workspaceapi/agents/" + strings.Repeat("a", 257)},
		{"the chat of another agent", keyRead, "/workspaceapi/agents/ag_b1/chats/chat_1"},
		{"an unknown chat", keyRead, "/workspaceapi/agents/ag_main/chats/chat_nope"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { get(t, env, tc.path, tc.key, http.StatusNotFound, nil) })
	}
}

func TestAgentResourceHasKeyMetricDefinitionsOnBothPaths(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	for _, path := range []string{"/workspaceapi/agents/ag_main", "/agents/ag_main"} {
		var a struct {
			ID         string
			TeamID     string
			Tags       []string
			KeyMetrics []struct {
				Name        string
				Measurement struct{ Unit, Aggregation string }
			}
		}
		get(t, env, path, keyRead, http.StatusOK, &a)
		if a.ID != "ag_main" || a.TeamID != "team_a" || !slices.Equal(a.Tags, []string{"core"}) || len(a.KeyMetrics) != 2 ||
			a.KeyMetrics[0].Name != "resolved" || a.KeyMetrics[0].Measurement.Aggregation != "average" {
			t.Errorf("%s: %+v", path, a)
		}
	}
}

// metricsBody is the key-metrics report as the tests read it.
type metricsBody struct {
	AgentID string
	Period  struct{ StartDate, EndDate string }
	Metrics []struct {
		Name                                         string
		Count, TotalCount, ValueCount, PreviousCount int
		Aggregate, PreviousAggregate                 *float64
		LastRecordedAt                               *string
		Recent                                       []map[string]any
	}
}

func TestKeyMetricsPeriodArithmeticAtExactBoundaries(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	at := func(s string) time.Time { v, _ := time.Parse(time.RFC3339Nano, s); return v }
	ms := time.Millisecond
	evs := []any{
		record("r1", "resolved", at("2026-11-10T06:00:00Z"), num(10)),         // at start: in
		record("r2", "resolved", at("2026-11-11T12:00:00Z"), num(20)),         // a whole day: in
		record("r3", "resolved", at("2026-11-12T06:00:00Z").Add(-ms), nil),    // last instant, no value: counts, no value
		record("r4", "resolved", at("2026-11-12T06:00:00Z"), num(99)),         // at end: out (the newest ever)
		record("r5", "resolved", at("2026-11-10T06:00:00Z").Add(-ms), num(4)), // previous period's last instant
		record("r6", "resolved", at("2026-11-09T00:00:00Z"), num(6)),          // previous: a whole day
		record("r7", "resolved", at("2026-11-08T06:00:00Z"), num(1)),          // previous period's start: in
		record("r8", "resolved", at("2026-11-08T06:00:00Z").Add(-ms), num(1000)),
	}
	ingestEvents(t, env, evs...)
	ingestEvents(t, env, evs...) // redelivered: applied once
	var b metricsBody
	get(t, env, "/workspaceapi/agents/ag_main/key-metrics?startDate=2026-11-10T06:00:00Z&endDate=2026-11-12T06:00:00Z&recent=2", keyRead, http.StatusOK, &b)
	if b.Period.StartDate != "2026-11-10T06:00:00.000Z" || b.Period.EndDate != "2026-11-12T06:00:00.000Z" || len(b.Metrics) != 2 {
		t.Fatalf("report = %+v", b)
	}
	m := b.Metrics[0]
	if m.Count != 3 || m.ValueCount != 2 || m.PreviousCount != 3 || m.TotalCount != 8 {
		t.Errorf("count %d valueCount %d previousCount %d totalCount %d; want 3 2 3 8", m.Count, m.ValueCount, m.PreviousCount, m.TotalCount)
	}
	if m.Aggregate == nil || *m.Aggregate != 15 || m.PreviousAggregate == nil || *m.PreviousAggregate != 11.0/3 {
		t.Errorf("aggregate %v previous %v; want the averages 15 and 11/3", m.Aggregate, m.PreviousAggregate)
	}
	if m.LastRecordedAt == nil || *m.LastRecordedAt != "2026-11-12T06:00:00.000Z" {
		t.Errorf("lastRecordedAt = %v, want the newest record ever", m.LastRecordedAt)
	}
	if len(m.Recent) != 2 || m.Recent[0]["id"] != "r3" || m.Recent[1]["id"] != "r2" {
		t.Errorf("recent = %v, want r3 then r2 (newest inside the period first)", m.Recent)
	}
	if _, ok := m.Recent[0]["value"]; ok {
		t.Errorf("a record without a value has a value key: %v", m.Recent[0])
	}
	s := b.Metrics[1]
	if s.Name != "signups" || s.Count != 0 || s.TotalCount != 0 || s.Aggregate != nil || s.LastRecordedAt != nil || len(s.Recent) != 0 {
		t.Errorf("a metric without records = %+v", s)
	}

	tests := []struct {
		name, query          string
		count, previousCount int
	}{
		{"days × 24 h ending at endDate", "?days=1&endDate=2026-11-12T06:00:00Z", 2, 1},
		{"dates are UTC midnights", "?startDate=2026-11-10&endDate=2026-11-12", 3, 3},
		{"startDate wins over days", "?days=365&startDate=2026-11-10T06:00:00Z&endDate=2026-11-12T06:00:00Z", 3, 3},
		{"the default: 30 days ending now", "", 8, 0},
		{"an empty period", "?startDate=2026-11-10T06:00:00Z&endDate=2026-11-10T06:00:00Z", 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b metricsBody
			get(t, env, "/workspaceapi/agents/ag_main/key-metrics"+tc.query, keyRead, http.StatusOK, &b)
			if m := b.Metrics[0]; m.Count != tc.count || m.PreviousCount != tc.previousCount {
				t.Errorf("count %d previous %d, want %d %d", m.Count, m.PreviousCount, tc.count, tc.previousCount)
			}
		})
	}

	// Round trips: the agent, then the reads of both metrics at once (per
	// metric its day summaries, total, newest record and recent ones: 8,
	// within the store's bound of 8 in flight): 9 in all, 2 in turn.
	res := get(t, env, "/workspaceapi/agents/ag_main/key-metrics?startDate=2026-11-10&endDate=2026-11-12&recent=2", keyRead, http.StatusOK, nil)
	if res.FunctionTrips != 9 || res.FunctionPath > 2 {
		t.Errorf("%d round trips, %d in turn (%v); want 9, at most 2 in turn", res.FunctionTrips, res.FunctionPath, env.FunctionTrips.Ops())
	}
}

// TestKeyMetricsReadsCountAsOneStepHoweverTheyAreScheduled: the critical
// path follows the code, not the machine: the 8 reads sent at once are one
// step even when the client runs them one by one.
func TestKeyMetricsReadsCountAsOneStepHoweverTheyAreScheduled(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, testFixture, apitest.Options{FunctionOptions: func(id string) []func(*dynamodb.Options) {
		if id == "AgentDataFunction" {
			return []func(*dynamodb.Options){dynamolocal.OneAtATime()}
		}
		return nil
	}})
	res := get(t, env, "/workspaceapi/agents/ag_main/key-metrics?startDate=2026-11-10&endDate=2026-11-12&recent=2", keyRead, http.StatusOK, nil)
	if res.FunctionTrips != 9 || res.FunctionPath != 2 {
		t.Errorf("%d round trips, %d in turn (%v); want 9, 2 in turn", res.FunctionTrips, res.FunctionPath, env.FunctionTrips.Ops())
	}
}

func TestKeyMetricsSumAggregation(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	day := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	ingestEvents(t, env, record("s1", "signups", day.Add(time.Hour), num(2)), record("s2", "signups", day.Add(2*time.Hour), num(3)))
	var b metricsBody
	get(t, env, "/workspaceapi/agents/ag_main/key-metrics?days=7", keyRead, http.StatusOK, &b)
	if m := b.Metrics[1]; m.Aggregate == nil || *m.Aggregate != 5 || m.PreviousAggregate != nil {
		t.Errorf("sum = %v, previous %v; want 5 and null", m.Aggregate, m.PreviousAggregate)
	}
}

func TestAgentDataBadQueriesAnswer400BeforeReading(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	for _, q := range []string{
		"key-metrics?days=abc", "key-metrics?days=1.5", "key-metrics?days=0", "key-metrics?days=366",
		"key-metrics?recent=many", "key-metrics?recent=501", "key-metrics?startDate=yesterday",
		"key-metrics?startDate=2026-11-12&endDate=2026-11-10", "key-metrics?days=1&days=2",
		"diary?year=2026", "diary?month=11", "diary?year=2026&month=13", "diary?year=2026&month=march",
		"diary?year=2026&month=11&date=2026-11-01", "diary?year=2026&month=11&conversationId=c1", "diary?date=2026-13-01",
	} {
		t.Run(q, func(t *testing.T) {
			// An unknown agent: the query is refused before the agent is looked up.
			get(t, env, "/workspaceapi/agents/ag_nobody/"+q, keyRead, http.StatusBadRequest, nil)
		})
	}
}

func TestDiaryDayConversationAndMonth(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	entry := func(id, ts, conv string) map[string]any {
		e := map[string]any{"id": id, "customerId": "cust_1", "timestamp": ts, "type": "note", "title": "T " + id, "details": strings.Repeat("d", 5000)}
		if conv != "" {
			e["conversationId"] = conv
		}
		return map[string]any{"type": "diary.entry", "id": "ev_" + id, "workspaceId": "ws_a", "agentId": "ag_main", "entry": e}
	}
	evs := []any{entry("d1", "2026-11-20T10:00:00Z", "c1"), entry("d2", "2026-11-20T08:00:00Z", ""),
		entry("d3", "2026-11-21T01:00:00Z", "c1"), entry("d4", "2026-11-05T23:59:59.999Z", "")}
	ingestEvents(t, env, evs...)
	ingestEvents(t, env, evs...) // redelivered: counted once
	ids := func(query string) []string {
		var b struct{ Entries []map[string]any }
		get(t, env, "/workspaceapi/agents/ag_main/diary"+query, keyRead, http.StatusOK, &b)
		var out []string
		for _, e := range b.Entries {
			out = append(out, e["id"].(string))
			if _, has := e["conversationId"]; has != (e["id"] == "d1" || e["id"] == "d3") {
				t.Errorf("%s: conversationId key present = %v", e["id"], has)
			}
		}
		return out
	}
	tests := []struct {
		name, query string
		want        []string
	}{
		{"a day, oldest first", "?date=2026-11-20", []string{"d2", "d1"}},
		{"a full timestamp names its UTC day", "?date=2026-11-20T23:00:00%2B05:00", []string{"d2", "d1"}},
		{"today by default", "", []string{"d3"}},
		{"a conversation overrides the date", "?conversationId=c1&date=2026-11-05", []string{"d1", "d3"}},
		{"an unknown conversation", "?conversationId=nope", nil},
		{"a day without entries", "?date=2026-01-01", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ids(tc.query); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	var month struct {
		Year, Month int
		Days        []struct {
			Date  string
			Count int
		}
	}
	get(t, env, "/workspaceapi/agents/ag_main/diary?year=2026&month=11", keyRead, http.StatusOK, &month)
	got, _ := json.Marshal(month.Days)
	if month.Year != 2026 || month.Month != 11 || string(got) != `[{"Date":"2026-11-05","Count":1},{"Date":"2026-11-20","Count":2},{"Date":"2026-11-21","Count":1}]` {
		t.Errorf("month summary = %d-%d %s", month.Year, month.Month, got)
	}
}

func TestChatIsServedOldestFirstAndRedacted(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	res := get(t, env, "/workspaceapi/agents/ag_main/chats/chat_1", keyRead, http.StatusOK, nil)
	for _, hidden := range []string{secret, "plain-credential"} {
		if strings.Contains(string(res.Body), hidden) {
			t.Errorf("%q survived: %s", hidden, res.Body)
		}
	}
	var c map[string]any
	res.JSON(t, &c)
	if _, has := c["transport"]; has {
		t.Error("a portal chat has a transport key")
	}
	if c["createdDate"] != "2026-11-20T09:00:00.000Z" || c["lastActivityDate"] != "2026-11-20T09:00:03.000Z" ||
		c["creditsTotal"] != 2.5 || c["llmModel"] != "fast" || c["shortDesc"] != "CRM lookup" {
		t.Errorf("chat = %v", c)
	}
	msgs := c["messages"].([]any)
	var order []string
	for _, m := range msgs {
		order = append(order, m.(map[string]any)["messageId"].(string))
	}
	if !slices.Equal(order, []string{"m1", "m2", "m3"}) {
		t.Errorf("messages %v, want oldest first", order)
	}
	args := msgs[2].(map[string]any)["body"].(map[string]any)["tool_calls"].([]any)[0].(map[string]any)["function"].(map[string]any)["arguments"].(string)
	if args != `{"password":"[REDACTED]","user":"ann"}` {
		t.Errorf("arguments = %s: still a string, redacted", args)
	}
	// Redaction happens on output: the stored native form stays intact.
	stored, err := env.Store.Chat(t.Context(), "ws_a", "ag_main", "chat_1")
	if err != nil || !strings.Contains(string(stored.Messages[0].Body), secret) {
		t.Errorf("stored body = %s, %v", stored.Messages[0].Body, err)
	}
}

func TestChatTransportLargeBodiesAndUsageCredits(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	big := strings.Repeat("0123456789abcdef", 45000) // 720 KB: three items
	msg := func(ev, id string, ts string, body any) map[string]any {
		return map[string]any{"type": "chat.message", "id": ev, "workspaceId": "ws_a", "agentId": "ag_main", "chatId": "chat_tg",
			"chat":    map[string]any{"transport": map[string]any{"type": "telegram"}},
			"message": map[string]any{"format": "text", "body": body, "messageId": id, "ts": ts}}
	}
	ingestEvents(t, env, msg("ev_t2", "m2", "2026-11-21T10:00:00Z", "short"), msg("ev_t1", "m1", "2026-11-21T09:00:00Z", big))
	use := map[string]any{"type": "credits.used", "id": "ev_tu", "workspaceId": "ws_a", "agentId": "ag_main", "credits": 1.5,
		"occurredAt": "2026-11-21T10:00:01Z", "chatId": "chat_tg"}
	ingestEvents(t, env, use)
	ingestEvents(t, env, msg("ev_t3", "m3", "2026-11-21T11:00:00Z", "later")) // a later SET keeps creditsTotal
	var c struct {
		Transport        *struct{ Type string }
		CreatedDate      string
		LastActivityDate string
		CreditsTotal     float64
		Messages         []struct {
			MessageID string
			Body      string
		}
	}
	get(t, env, "/workspaceapi/agents/ag_main/chats/chat_tg", keyRead, http.StatusOK, &c)
	if c.Transport == nil || c.Transport.Type != "telegram" || c.CreditsTotal != 1.5 || len(c.Messages) != 3 ||
		c.Messages[0].Body != big || c.Messages[1].Body != "short" || c.LastActivityDate != "2026-11-21T11:00:00.000Z" {
		t.Errorf("transport %v, credits %g, %d messages, first body %d bytes, last activity %s",
			c.Transport, c.CreditsTotal, len(c.Messages), len(c.Messages[0].Body), c.LastActivityDate)
	}
}

func TestIngestOfUnknownAgentsFails(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	err := env.Store.PutMetricRecord(t.Context(), "ev_x", "ws_a", "ag_nobody",
		workspace.MetricRecord{ID: "x", Metric: "resolved", OccurredAt: apiStart()}, apiStart())
	if err != workspace.ErrAgentNotFound {
		t.Errorf("err = %v, want ErrAgentNotFound", err)
	}
	err = env.Store.PutDiaryEntry(t.Context(), "ev_y", "ws_b", workspace.DiaryEntry{ID: "y", AgentID: "ag_main", Timestamp: apiStart()}, apiStart())
	if err != workspace.ErrAgentNotFound {
		t.Errorf("another workspace's agent: err = %v, want ErrAgentNotFound", err)
	}
}

func TestConnectedAgents(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	type entry struct{ ID, GroupID, GroupName string }
	var b struct{ Outbound, Inbound, Available []entry }
	get(t, env, "/workspaceapi/agents/ag_main/connected-agents", keyRead, http.StatusOK, &b)
	want := `{"Outbound":[{"ID":"ag_private","GroupID":"team_a","GroupName":"Research"},{"ID":"ag_b1","GroupID":"team_b","GroupName":"Support"}],` +
		`"Inbound":[{"ID":"ag_b1","GroupID":"team_b","GroupName":"Support"},{"ID":"ag_none","GroupID":"","GroupName":""},{"ID":"ag_team","GroupID":"team_a","GroupName":"Research"}],` +
		`"Available":[{"ID":"ag_team","GroupID":"team_a","GroupName":"Research"}]}`
	if got, _ := json.Marshal(b); string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// An agent without a team has its group, null, not left out.
	raw := get(t, env, "/workspaceapi/agents/ag_main/connected-agents", keyRead, http.StatusOK, nil)
	if !strings.Contains(string(raw.Body), `"id":"ag_none","name":"None","description":"","imageUrl":"","groupId":null,"groupName":null`) {
		t.Errorf("a teamless agent's groupId and groupName are not null: %s", raw.Body)
	}
	res := get(t, env, "/workspaceapi/agents/ag_main/connected-agents", keyTeamA, http.StatusOK, &b)
	if len(b.Outbound) != 2 || len(b.Inbound) != 3 {
		t.Errorf("a team-scoped key still sees real connections across teams: %+v", b)
	}
	// The agent, the workspace's agents (inbound connections are found only
	// in the agents that make them) and the names of the answered agents'
	// teams alone, not every team of the workspace.
	if ops := env.FunctionTrips.Ops(); res.FunctionTrips != 3 || env.FunctionTrips.OpCount("Query") != 1 || env.FunctionTrips.OpCount("BatchGetItem") != 1 {
		t.Errorf("round trips %v, want the agent's GetItem, one Query of the agents and one BatchGetItem of the teams' names", ops)
	}
}
