package dynamo_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
	"github.com/agentplatform/workspaceapi/infra/tableops"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// benchWorkspace writes a workspace of n agents spread over teams of 100
// into a store of its own DynamoDB Local (large tables slow a shared one).
func benchWorkspace(b *testing.B, n int) (*dynamo.Store, *tableops.RoundTrips, []workspace.Agent) {
	b.Helper()
	rt := &tableops.RoundTrips{}
	client := dynamolocal.NewClientAt(b, dynamolocal.Own(b), rt)
	store := dynamo.New(client, dynamolocal.NewTable(b, client))
	snap := tableops.Snapshot{Workspace: workspace.Workspace{ID: "ws1", Name: "W", Seats: 5, TeamSettingsEnabled: true, DefaultDailyCreditLimit: lim(1e6)}}
	for t := 0; t < (n+99)/100; t++ {
		snap.Teams = append(snap.Teams, workspace.Team{ID: fmt.Sprintf("team%03d", t), Name: fmt.Sprint("Team ", t), MonthlyCreditLimit: lim(1e9)})
	}
	for i := range n {
		snap.Agents = append(snap.Agents, workspace.Agent{
			ID: fmt.Sprintf("agent%05d", i), Name: fmt.Sprint("Agent ", i), TeamID: fmt.Sprintf("team%03d", i/100),
			AgentDiscoverability: "workspace", MonthlyCreditLimit: lim(1e9),
		})
	}
	if err := tableops.PutSnapshot(context.Background(), store, snap, noon); err != nil {
		b.Fatal(err)
	}
	return store, rt, snap.Agents
}

// BenchmarkApplyUsage records SQS-sized batches of 25 credits.used events
// of 5 agents of one team: events/s is the ingest throughput of one
// function instance against DynamoDB Local.
func BenchmarkApplyUsage(b *testing.B) {
	store, rt, agents := benchWorkspace(b, 100)
	ctx := context.Background()
	seq := 0
	rt.Reset()
	b.ResetTimer()
	for b.Loop() {
		batch := make([]workspace.Usage, 25)
		for i := range batch {
			seq++
			batch[i] = workspace.Usage{EventID: fmt.Sprint("e", seq), WorkspaceID: "ws1", AgentID: agents[i%5].ID, Credits: 0.5, OccurredAt: noon}
		}
		for _, err := range store.ApplyUsage(ctx, workspace.SystemActor(workspace.SystemIngest), batch, noon).Errs {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N*25)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(rt.Count())/float64(b.N), "roundtrips/batch")
}

// BenchmarkCreditsReport reads the month's credits report of a workspace
// of 10, 1,000 and 10,000 agents (teams of 100) with usage on each, a
// default page (1,000 teams and agents at most) at a time: per op, the
// whole report, with the round trips and read units of its pages (the read
// units as DynamoDB Local reports them).
func BenchmarkCreditsReport(b *testing.B) {
	for _, n := range []int{10, 1000, 10000} {
		b.Run(fmt.Sprint("agents=", n), func(b *testing.B) {
			store, rt, agents := benchWorkspace(b, n)
			ctx := context.Background()
			for start := 0; start < n; start += 25 {
				var batch []workspace.Usage
				for _, a := range agents[start:min(start+25, n)] {
					batch = append(batch, workspace.Usage{EventID: "u" + a.ID, WorkspaceID: "ws1", AgentID: a.ID, Credits: 1, OccurredAt: noon})
				}
				store.ApplyUsage(ctx, workspace.SystemActor(workspace.SystemIngest), batch, noon)
			}
			rt.Reset()
			pages, lines := 0, 0
			b.ResetTimer()
			for b.Loop() {
				for pos := (workspace.ReportPos{}); ; {
					rep, err := store.CreditsReportPage(ctx, "ws1", workspace.MonthKey(noon), noon.Add(time.Minute), pos, 1000)
					if err != nil || rep.Total != float64(n) {
						b.Fatalf("report page: total %v, %v", rep.Total, err)
					}
					pages++
					lines += len(rep.Teams) + len(rep.Agents)
					if rep.Next == nil {
						break
					}
					pos = *rep.Next
				}
			}
			if want := n + (n+99)/100; lines != b.N*want {
				b.Fatalf("%d lines in %d reports, want %d each", lines, b.N, want)
			}
			b.ReportMetric(float64(pages)/float64(b.N), "pages/op")
			b.ReportMetric(float64(rt.Count())/float64(pages), "roundtrips/page")
			b.ReportMetric(rt.ReadUnits()/float64(lines), "readunits/line")
		})
	}
}
