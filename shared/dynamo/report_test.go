package dynamo_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// consistentReads records, per operation, whether each read the client
// sends asks for strong consistency.
type consistentReads struct {
	mu   sync.Mutex
	seen []string
}

func (c *consistentReads) option(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
		return s.Initialize.Add(middleware.InitializeMiddlewareFunc("RecordConsistency",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (
				middleware.InitializeOutput, middleware.Metadata, error) {
				var strong bool
				switch p := in.Parameters.(type) {
				case *dynamodb.QueryInput:
					strong = aws.ToBool(p.ConsistentRead)
				case *dynamodb.GetItemInput:
					strong = aws.ToBool(p.ConsistentRead)
				case *dynamodb.BatchGetItemInput:
					for _, r := range p.RequestItems {
						strong = strong || aws.ToBool(r.ConsistentRead)
					}
				case *dynamodb.TransactGetItemsInput:
					strong = true
				}
				c.mu.Lock()
				c.seen = append(c.seen, fmt.Sprintf("%s strong=%v", middleware.GetOperationName(ctx), strong))
				c.mu.Unlock()
				return next.HandleInitialize(ctx, in)
			}), middleware.Before)
	})
}

func (c *consistentReads) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.seen
	c.seen = nil
	return out
}

// What only displays reads eventually consistently: the credits report's
// pages and the agents' overview. Nothing is written from them.
func TestDisplayReadsAreEventuallyConsistent(t *testing.T) {
	t.Parallel()
	rec := &consistentReads{}
	w := newCreditWorld(t, rec.option)
	w.use("a1", 5, noon)
	ctx := context.Background()
	rec.take()
	rep, err := w.store.CreditsReportPage(ctx, "ws1", "2026-11", noon.Add(time.Minute), workspace.ReportPos{}, 2)
	if err != nil || rep.Total != 5 || len(rep.Teams) != 1 || len(rep.Agents) != 2 || rep.Next == nil {
		t.Fatalf("first page: total %v, %d teams, %d agents, next %v, %v; want 5, 1, 2 and a next page", rep.Total, len(rep.Teams), len(rep.Agents), rep.Next, err)
	}
	last, err := w.store.CreditsReportPage(ctx, "ws1", "2026-11", noon.Add(time.Minute), *rep.Next, 2)
	if err != nil || last.Total != 5 || len(last.Teams) != 0 || len(last.Agents) != 2 || last.Next != nil {
		t.Fatalf("last page: total %v, %d teams, %d agents, next %v, %v; want 5, none, 2 and no next page", last.Total, len(last.Teams), len(last.Agents), last.Next, err)
	}
	agents, _, err := w.store.AgentPage(ctx, "ws1", "", "", 10)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.store.AgentCredits(ctx, "ws1", agents, noon); err != nil {
		t.Fatal(err)
	}
	for _, r := range rec.take() {
		if r[len(r)-len("strong=true"):] == "strong=true" {
			t.Errorf("a display read is strongly consistent: %s", r)
		}
	}
}
