package dynamo_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/shared/dynamo"
)

// resumeCost is what resumes cost DynamoDB, measured on their transactions.
type resumeCost struct {
	mu sync.Mutex
	// Per transaction: its items, and the write units of the table and of
	// its indexes, per partition ("table PK" or "index key").
	txItems    int
	itemKinds  map[string]int
	wcu        float64
	partitions map[string]float64
	// updated holds the keys of the items the transactions update, sized
	// after the run.
	updated []map[string]types.AttributeValue
}

// units is the write units of an item of n bytes: 1 per KB begun.
func units(n int) float64 { return math.Ceil(float64(max(n, 1)) / 1024) }

// itemBytes is an item's size as DynamoDB counts it: names and values.
func itemBytes(m map[string]types.AttributeValue) int {
	n := 0
	for k, v := range m {
		n += len(k) + valueBytes(v)
	}
	return n
}

func valueBytes(v types.AttributeValue) int {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return len(v.Value)
	case *types.AttributeValueMemberN:
		return (len(strings.TrimLeft(v.Value, "-0."))+1)/2 + 1
	case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		return 1
	case *types.AttributeValueMemberSS:
		n := 0
		for _, s := range v.Value {
			n += len(s)
		}
		return n
	case *types.AttributeValueMemberM:
		return 3 + itemBytes(v.Value)
	case *types.AttributeValueMemberL:
		n := 3
		for _, e := range v.Value {
			n += 1 + valueBytes(e)
		}
		return n
	}
	return 0
}

func (c *resumeCost) option() func(*dynamodb.Options) {
	return onTransaction("MeasureResumeCost", func(_ context.Context, in *dynamodb.TransactWriteItemsInput) {
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, it := range in.TransactItems {
			c.txItems++
			switch {
			case it.Put != nil:
				c.itemKinds["Put"]++
				u := units(itemBytes(it.Put.Item))
				c.add("table "+pk(it.Put.Item["PK"]), 2*u)
				for _, index := range []string{"GSI1PK", "GSI2PK", "GSI3PK"} {
					if v, ok := it.Put.Item[index]; ok {
						c.add(index+" "+pk(v), u)
					}
				}
			case it.Update != nil:
				c.itemKinds["Update"]++
				c.updated = append(c.updated, it.Update.Key)
			case it.ConditionCheck != nil:
				c.itemKinds["ConditionCheck"]++
				c.add("table "+pk(it.ConditionCheck.Key["PK"]), 2) // items under 1 KB: the agent's
			case it.Delete != nil:
				c.itemKinds["Delete"]++
			}
		}
	})
}

func pk(v types.AttributeValue) string {
	if s, ok := v.(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

func (c *resumeCost) add(partition string, u float64) {
	c.wcu += u
	c.partitions[partition] += u
}

// sizeUpdates adds the write units of the updated items: 2 per KB of the
// item (a transaction's write), and 1 per KB for the resume-index entry the
// update removes (the item's GSI2 keys, read before the run: held).
func (c *resumeCost) sizeUpdates(t *testing.T, w *stoppedWorld, before map[string]int) {
	t.Helper()
	for _, k := range c.updated {
		out, err := w.db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(w.table), Key: k})
		if err != nil {
			t.Fatal(err)
		}
		c.add("table "+pk(k["PK"]), 2*units(max(itemBytes(out.Item), before[pk(k["PK"])])))
		c.add("GSI2PK (removed entry)", units(before[pk(k["PK"])]))
	}
}

// stateSizes reads every held agent state item's size from the resume
// index, before the run.
func stateSizes(t *testing.T, w *stoppedWorld) map[string]int {
	t.Helper()
	sizes := map[string]int{}
	for n := range dynamo.SchedulerPace.ResumeShards {
		p := dynamodb.NewQueryPaginator(w.db, &dynamodb.QueryInput{TableName: aws.String(w.table), IndexName: aws.String(dynamo.IndexGSI2),
			KeyConditionExpression:    aws.String("GSI2PK = :pk"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: fmt.Sprint("RESUME#DAY#", n)}}})
		for p.HasMorePages() {
			page, err := p.NextPage(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range page.Items {
				sizes[pk(it["PK"])] = itemBytes(it)
			}
		}
	}
	return sizes
}

// AWS premises of the model (docs/benchmarks.md#scheduler-at-scale).
const (
	awsReadLatency     = 10 * time.Millisecond // a BatchGetItem of a few items, same region
	awsTransactLatency = 30 * time.Millisecond // a TransactWriteItems of 4 items
	awsQueryLatency    = 50 * time.Millisecond // a Query page of 1 MB
	lambdaTimeout      = 900 * time.Second
	tableMaxWCU        = 40000 // an on-demand table's default maximum write units a second
	partitionWCU       = 1000
	largestWorkspace   = 10000 // agents of the largest tenant, all stopped
	// The client's CPU time per resume (BenchmarkResumeDue: the run's own
	// code path, as profiled) and the function's vCPUs at its memory
	// (Lambda gives 1 vCPU per 1,769 MB; 6,144 MB: about 3.5).
	cpuPerResume   = 1300 * time.Microsecond
	lambdaVCPUs    = 6144.0 / 1769
	agentsToResume = 1_000_000
	target         = 10 * time.Minute
)

// A million stopped agents resume within 10 minutes in AWS: the model takes
// the per-resume cost measured here, on DynamoDB Local through the real
// code (round trips, items written, write units per partition), and the
// AWS premises above, and computes the run's wall time.
func TestAMillionStoppedAgentsResumeWithinTenMinutes(t *testing.T) {
	t.Parallel()
	cost := &resumeCost{itemKinds: map[string]int{}, partitions: map[string]float64{}}
	w := newStoppedWorld(t, []int{30, 10}, cost.option())
	before := stateSizes(t, w)
	cost.mu.Lock()
	cost.txItems, cost.wcu, cost.updated = 0, 0, nil
	clear(cost.itemKinds)
	clear(cost.partitions)
	cost.mu.Unlock()
	w.rt.Reset()
	run, err := w.run(context.Background(), w.store)
	if err != nil || run.ResumedAgents != 40 {
		t.Fatalf("run: %+v, %v", run, err)
	}
	cost.sizeUpdates(t, w, before)
	n := float64(run.ResumedAgents)
	reads := float64(w.rt.OpCount("BatchGetItem")) / n
	writes := float64(w.rt.OpCount("TransactWriteItems")) / n
	wcu := cost.wcu / n
	// The hottest partition one workspace's resumes share (its main
	// partition, its audit log, its audit action index), in write units
	// per resume of that workspace (ws0 has 30 of the 40).
	hot, hotName := 0.0, ""
	for p, u := range cost.partitions {
		if strings.Contains(p, "ws0") && u/30 > hot && u > 2*3 {
			hot, hotName = u/30, p
		}
	}
	entry := 0
	for _, b := range before {
		entry = max(entry, b)
	}

	pace := dynamo.SchedulerPace
	perResume := time.Duration(math.Round(reads))*awsReadLatency + time.Duration(math.Round(writes))*awsTransactLatency
	rate := math.Min(pace.RunRate, float64(pace.Concurrency)/perResume.Seconds())
	cpus := rate * cpuPerResume.Seconds()
	resumeTime := agentsToResume / rate
	largestTime := largestWorkspace / pace.WorkspaceRate
	pages := math.Max(agentsToResume/2000, math.Ceil(agentsToResume*float64(entry)/(1<<20)))
	indexTime := pages / float64(pace.Readers) * awsQueryLatency.Seconds()
	wall := math.Max(resumeTime, largestTime) + indexTime

	var tbl strings.Builder
	row := func(k, v string) { fmt.Fprintf(&tbl, "| %s | %s |\n", k, v) }
	row("measured: round trips per resume", fmt.Sprintf("%.2f BatchGetItem, %.2f TransactWriteItems, in turn", reads, writes))
	row("measured: transaction items per resume", fmt.Sprintf("%.1f (%v)", float64(cost.txItems)/n, cost.itemKinds))
	row("measured: write units per resume", fmt.Sprintf("%.1f (table and indexes; resume-index entry %d bytes)", wcu, entry))
	row("measured: hottest shared partition", fmt.Sprintf("%s, %.1f WCU per resume of its workspace", hotName, hot))
	row("premise: per-resume latency", fmt.Sprintf("%v (read %v + transaction %v)", perResume, awsReadLatency, awsTransactLatency))
	row("run rate", fmt.Sprintf("min(%g/s, %d in flight / %v) = %.0f resumes/s", pace.RunRate, pace.Concurrency, perResume, rate))
	row("client CPU", fmt.Sprintf("%.0f resumes/s × %v = %.2f vCPU (premise: %.2f at 6,144 MB)", rate, cpuPerResume, cpus, lambdaVCPUs))
	row("table write units", fmt.Sprintf("%.0f WCU/s (premise: on-demand maximum %d)", rate*wcu, tableMaxWCU))
	row("one workspace's hottest partition", fmt.Sprintf("%.0f WCU/s at %g resumes/s (limit %d)", pace.WorkspaceRate*hot, pace.WorkspaceRate, partitionWCU))
	row("1,000,000 resumes", fmt.Sprintf("%.0f s", resumeTime))
	row("largest workspace (10,000 agents)", fmt.Sprintf("%.0f s", largestTime))
	row("reading the index", fmt.Sprintf("%.0f pages / %d readers × %v = %.1f s", pages, pace.Readers, awsQueryLatency, indexTime))
	row("wall time", fmt.Sprintf("%.0f s (target %v; one invocation: %v less the %v margin)", wall, target, lambdaTimeout, pace.StopMargin))
	t.Logf("the scheduler at scale:\n%s", tbl.String())

	if cpus > lambdaVCPUs {
		t.Errorf("the run needs %.2f vCPU, over the function's %.2f", cpus, lambdaVCPUs)
	}
	if rate*wcu > tableMaxWCU {
		t.Errorf("the run writes %.0f WCU/s, over the table's %d", rate*wcu, tableMaxWCU)
	}
	if pace.WorkspaceRate*hot > partitionWCU/4 {
		t.Errorf("one workspace's resumes write %.0f WCU/s on %s, want at most a quarter of a partition's %d", pace.WorkspaceRate*hot, hotName, partitionWCU)
	}
	if wall > target.Seconds() || wall > (lambdaTimeout-pace.StopMargin).Seconds() {
		t.Errorf("1,000,000 resumes take %.0f s, want within %v and one invocation", wall, target)
	}
}
