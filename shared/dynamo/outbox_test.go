package dynamo_test

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"

	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
	"github.com/agentplatform/workspaceapi/infra/localstream"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// streamEvents reads the limit events the store's table stream carries, as
// the events function's event source hands them over, until want of them
// arrived (or 20 s passed); with want < 0, until none came for a second.
func streamEvents(t *testing.T, table string, want int) []workspace.LimitEvent {
	t.Helper()
	streams, err := localstream.NewClient(t.Context(), dynamolocal.Endpoint(t))
	if err != nil {
		t.Fatal(err)
	}
	// A table without a stream would read as one that carried no event.
	if out, err := streams.ListStreams(t.Context(), &dynamodbstreams.ListStreamsInput{TableName: aws.String(table)}); err != nil || len(out.Streams) == 0 {
		t.Fatalf("table %s has no stream (%v): make it with dynamolocal.NewStreamedTable", table, err)
	}
	var mu sync.Mutex
	var got []workspace.LimitEvent
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// Without a count, reading ends once the stream has been quiet a while
	// (the first read may take a few seconds).
	quiet := time.AfterFunc(5*time.Second, func() {
		if want < 0 {
			cancel()
		}
	})
	defer quiet.Stop()
	localstream.Run(ctx, streams, localstream.Source{Table: table, Interval: 20 * time.Millisecond}, func(_ context.Context, raw []byte) ([]byte, error) {
		var ev events.DynamoDBEvent
		if err := json.Unmarshal(raw, &ev); err != nil {
			return nil, err
		}
		mu.Lock()
		defer mu.Unlock()
		for _, rec := range ev.Records {
			le, ok, err := dynamo.OutboxEvent(rec)
			if err != nil {
				t.Errorf("an outbox record that does not decode: %v", err)
			}
			if ok {
				got = append(got, le)
			}
		}
		if want >= 0 && len(got) >= want {
			cancel()
		}
		if want < 0 {
			quiet.Reset(time.Second)
		}
		return []byte(`{"batchItemFailures": []}`), nil
	})
	mu.Lock()
	defer mu.Unlock()
	return got
}

func TestAThresholdIsWrittenOncePerPeriodAndItsEventDecodesFromTheStream(t *testing.T) {
	t.Parallel()
	store, _ := dynamolocal.NewStreamedStore(t)
	ctx := t.Context()
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	agent := workspace.EventTarget{Type: workspace.TargetAgent, ID: "agt_1"}
	team := workspace.EventTarget{Type: workspace.TargetTeam, ID: "team_1"}
	daily80 := workspace.Crossing{Limit: workspace.LimitDaily, Percent: 80, Period: "2026-11-21", Credits: 8.25, Value: 10}
	tests := []struct {
		name   string
		target workspace.EventTarget
		c      workspace.Crossing
		want   bool
	}{
		{"the first crossing of 80% of the daily limit", agent, daily80, true},
		{"the same crossing again in the day", agent, daily80, false},
		{"100% of it", agent, workspace.Crossing{Limit: workspace.LimitDaily, Percent: 100, Period: "2026-11-21", Credits: 10, Value: 10}, true},
		{"80% of it on the next day", agent, workspace.Crossing{Limit: workspace.LimitDaily, Percent: 80, Period: "2026-11-22", Credits: 8, Value: 10}, true},
		{"80% of the monthly limit", agent, workspace.Crossing{Limit: workspace.LimitMonthly, Percent: 80, Period: "2026-11", Credits: 80, Value: 100}, true},
		{"80% of a team's limit", team, workspace.Crossing{Limit: workspace.LimitTeam, Percent: 80, Period: "2026-11", Credits: 400, Value: 500}, true},
		{"the team's again", team, workspace.Crossing{Limit: workspace.LimitTeam, Percent: 80, Period: "2026-11", Credits: 450, Value: 500}, false},
	}
	for _, tc := range tests {
		got, err := store.WriteThreshold(ctx, "ws_o", tc.target, tc.c, now)
		if err != nil || got != tc.want {
			t.Errorf("%s: written %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}

	evs := streamEvents(t, store.Table(), 5)
	if len(evs) != 5 {
		t.Fatalf("the stream carried %d limit events, want 5", len(evs))
	}
	first := evs[0]
	limit := 10.0
	want := workspace.LimitEvent{ID: first.ID, WorkspaceID: "ws_o", DetailType: workspace.EventThresholdReached, Target: agent,
		Reason: workspace.ReasonDailyLimit, Credits: 8.25, Limit: &limit, Threshold: 80, Period: "2026-11-21", At: now}
	if first.Limit == nil || *first.Limit != 10 || first.ID == "" {
		t.Fatalf("first event %+v, want %+v", first, want)
	}
	first.Limit = &limit
	if !slices.EqualFunc([]workspace.LimitEvent{first}, []workspace.LimitEvent{want}, func(a, b workspace.LimitEvent) bool {
		return a.ID == b.ID && a.WorkspaceID == b.WorkspaceID && a.DetailType == b.DetailType && a.Target == b.Target &&
			a.Reason == b.Reason && a.Credits == b.Credits && a.Threshold == b.Threshold && a.Period == b.Period && a.At.Equal(b.At)
	}) {
		t.Errorf("first event %+v, want %+v", first, want)
	}
	ids := map[string]bool{}
	for _, ev := range evs {
		ids[ev.ID] = true
	}
	if len(ids) != 5 {
		t.Errorf("event ids %v: want 5 distinct", ids)
	}
}
