// Command benchscale is make bench-scale (infra/benchscale): the ingest
// handler under a platform's load, on the DynamoDB Local DYNAMODB_ENDPOINT
// names, behind the model of DynamoDB's contention; it prints one markdown
// table. Flags change the run's shape (-h lists them).
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"

	"github.com/agentplatform/workspaceapi/infra/benchscale"
)

func main() {
	cfg := benchscale.DefaultConfig()
	flag.DurationVar(&cfg.Duration, "duration", cfg.Duration, "how long the platform sends")
	flag.IntVar(&cfg.Rate, "rate", cfg.Rate, "events per second the platform sends at most")
	flag.IntVar(&cfg.Backlog, "backlog", cfg.Backlog, "messages the queue holds before the platform waits")
	flag.IntVar(&cfg.Concurrency, "concurrency", cfg.Concurrency, "simulated Lambda environments (MaximumConcurrency)")
	flag.IntVar(&cfg.BatchSize, "batch", cfg.BatchSize, "SQS batch size")
	flag.Float64Var(&cfg.HotTeamLimit, "team-limit", cfg.HotTeamLimit, "the hot team's monthly limit")
	flag.Float64Var(&cfg.SmallDaily, "daily-limit", cfg.SmallDaily, "the small workspaces' limited agents' daily limit")
	flag.DurationVar(&cfg.CommitTime, "commit-time", cfg.CommitTime, "the model's commit phase")
	flag.Float64Var(&cfg.PartitionWCU, "wcu", cfg.PartitionWCU, "the model's write units per partition key and second (negative: none)")
	flag.BoolVar(&cfg.NoModel, "no-model", false, "DynamoDB Local alone, without the contention model (for comparison)")
	flag.Parse()
	cfg.Endpoint = os.Getenv("DYNAMODB_ENDPOINT")
	if cfg.Endpoint == "" {
		fmt.Fprintln(os.Stderr, "benchscale: DYNAMODB_ENDPOINT is not set (make bench-scale starts a DynamoDB Local)")
		os.Exit(2)
	}
	// Every failed event is logged by the handler; the table counts them.
	slog.SetDefault(slog.New(slog.DiscardHandler))
	res, err := benchscale.Run(context.Background(), cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchscale:", err)
		os.Exit(1)
	}
	res.Markdown(os.Stdout)
}
