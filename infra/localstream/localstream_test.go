package localstream_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
	"github.com/agentplatform/workspaceapi/infra/localstream"
)

func TestMain(m *testing.M) { os.Exit(dynamolocal.RunTests(m)) }

// function stands in for a stream-fed function: it records the ids of the
// records it was handed, in order, and fails those failing names (once
// each, or always while failAll is set).
type function struct {
	mu      sync.Mutex
	seen    []string
	failing map[string]bool
}

func (f *function) invoke(_ context.Context, event []byte) ([]byte, error) {
	var ev struct {
		Records []struct {
			Dynamodb struct {
				SequenceNumber string
				NewImage       map[string]map[string]string
			} `json:"dynamodb"`
		}
	}
	if err := json.Unmarshal(event, &ev); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var failures []map[string]string
	for _, r := range ev.Records {
		id := r.Dynamodb.NewImage["id"]["S"]
		if f.failing[id] {
			delete(f.failing, id)
			failures = append(failures, map[string]string{"itemIdentifier": r.Dynamodb.SequenceNumber})
			continue
		}
		f.seen = append(f.seen, id)
	}
	return json.Marshal(map[string]any{"batchItemFailures": failures})
}

func (f *function) ids() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.seen)
}

func put(t *testing.T, db *dynamodb.Client, table, entity, id string) {
	t.Helper()
	_, err := db.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "P#" + id}, "SK": &types.AttributeValueMemberS{Value: "S"},
		"entity": &types.AttributeValueMemberS{Value: entity}, "id": &types.AttributeValueMemberS{Value: id},
	}})
	if err != nil {
		t.Fatal(err)
	}
}

func waitFor(t *testing.T, f *function, want []string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if got := f.ids(); len(got) >= len(want) {
			if !slices.Equal(got, want) {
				t.Fatalf("the function was handed %v, want %v", got, want)
			}
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the function was handed %v, want %v", f.ids(), want)
}

func TestTheStreamFeedsTheFunctionThroughItsFilterInOrderAndRedeliversFromTheLowestFailure(t *testing.T) {
	db := dynamolocal.NewClient(t, nil)
	table := dynamolocal.NewStreamedTable(t, db)
	streams, err := localstream.NewClient(t.Context(), dynamolocal.Endpoint(t))
	if err != nil {
		t.Fatal(err)
	}
	// Written before the poller starts, so they arrive as one batch (it
	// reads from the stream's trim horizon).
	for i := 1; i <= 4; i++ {
		put(t, db, table, "outbox", fmt.Sprintf("e%d", i))
		put(t, db, table, "other", fmt.Sprintf("x%d", i))
	}
	// An update of an outbox item is no insertion: the filter drops it.
	put(t, db, table, "outbox", "e1")
	// e3 fails once: Lambda hands the batch over again from it, so e4
	// (which the function took) comes again after it.
	f := &function{failing: map[string]bool{"e3": true}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		localstream.Run(ctx, streams, localstream.Source{
			Table: table, Filter: `{"eventName": ["INSERT"], "dynamodb": {"NewImage": {"entity": {"S": ["outbox"]}}}}`,
			Interval: 20 * time.Millisecond,
		}, f.invoke)
	}()
	t.Cleanup(func() { cancel(); <-done })

	waitFor(t, f, []string{"e1", "e2", "e4", "e3", "e4"})
	put(t, db, table, "outbox", "e5")
	waitFor(t, f, []string{"e1", "e2", "e4", "e3", "e4", "e5"})
}
