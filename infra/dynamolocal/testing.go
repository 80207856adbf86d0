package dynamolocal

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/agentplatform/workspaceapi/infra/tableops"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
)

var (
	shared     *Instance
	sharedErr  error
	sharedOnce sync.Once
)

// Endpoint returns the DynamoDB Local endpoint tests use: $DYNAMODB_ENDPOINT
// when set (make test sets it to one instance for every test binary,
// infra/cmd/withdynamodb), else one in-memory instance started for the whole
// test binary. It fails the test, never skips it, when DynamoDB Local cannot
// run.
//
// A benchmark gets an instance of its own (Own), whatever the environment:
// DynamoDB Local answers more slowly once it has served load (its p50 of a
// transaction about doubles after eight tables were created, loaded and
// dropped, on the tables created after as on those created before: the
// stream records it keeps, NewTable), so a benchmark measured on a shared
// instance would measure the tests and benchmarks that ran before it.
func Endpoint(t testing.TB) string {
	t.Helper()
	if b, ok := t.(*testing.B); ok {
		return benchEndpoint(b)
	}
	if ep := os.Getenv("DYNAMODB_ENDPOINT"); ep != "" {
		return ep
	}
	sharedOnce.Do(func() {
		shared, sharedErr = Start(context.Background(), Options{})
	})
	if sharedErr != nil {
		t.Fatalf("storage tests need DynamoDB Local: %v", sharedErr)
	}
	return shared.Endpoint
}

// RunTests runs a package's tests and then stops the DynamoDB Local they
// started; call it from TestMain: os.Exit(dynamolocal.RunTests(m)).
func RunTests(m *testing.M) int {
	code := m.Run()
	if shared != nil {
		_ = shared.Stop()
	}
	return code
}

// NewClient returns a DynamoDB client for Endpoint(t) whose round trips rt
// counts (rt may be nil), with further client options.
func NewClient(t testing.TB, rt *tableops.RoundTrips, more ...func(*dynamodb.Options)) *dynamodb.Client {
	t.Helper()
	return NewClientAt(t, Endpoint(t), rt, more...)
}

// Own starts a DynamoDB Local for t alone and stops it when t ends; it
// returns its endpoint. Every benchmark uses one (Endpoint), and so do tests
// with large tables: one instance slows down after load, large tables
// dropped in it above all.
func Own(t testing.TB) string {
	t.Helper()
	inst, err := Start(context.Background(), Options{})
	if err != nil {
		t.Fatalf("storage tests need DynamoDB Local: %v", err)
	}
	t.Cleanup(func() { _ = inst.Stop() })
	return inst.Endpoint
}

// benchEndpoints holds each running benchmark's own instance, so that every
// client and table of one benchmark is on the same one.
var benchEndpoints sync.Map // *testing.B -> endpoint

// benchEndpoint returns b's own instance, started on first use.
func benchEndpoint(b *testing.B) string {
	b.Helper()
	if ep, ok := benchEndpoints.Load(b); ok {
		return ep.(string)
	}
	ep := Own(b)
	benchEndpoints.Store(b, ep)
	b.Cleanup(func() { benchEndpoints.Delete(b) })
	return ep
}

// LocalBounds are the storage bounds of clients whose waits are DynamoDB
// Local's own, longer than DynamoDB's: test clients (NewClientAt), and the
// local runner's setup of its table and fixture on an instance still
// warming up.
var LocalBounds = dynamo.Bounds{Attempt: 15 * time.Second, Call: 30 * time.Second}

// NewClientAt is NewClient for the DynamoDB Local at endpoint.
func NewClientAt(t testing.TB, endpoint string, rt *tableops.RoundTrips, more ...func(*dynamodb.Options)) *dynamodb.Client {
	t.Helper()
	// DynamoDB Local queues what DynamoDB would cancel: tests under load
	// wait longer than the production bounds allow (infra/outage applies
	// them again to hold the service to them).
	opts := []func(*dynamodb.Options){dynamo.WithBounds(LocalBounds)}
	if rt != nil {
		opts = append(opts, rt.Option())
	}
	opts = append(opts, more...)
	cfg, err := configFor(endpoint)
	if err != nil {
		t.Fatalf("dynamodb client: %v", err)
	}
	return dynamo.ClientFromConfig(cfg, endpoint, opts...)
}

// configs holds the AWS configuration of each endpoint, loaded once per
// test binary and shared by its clients (each client copies what its
// options change): loading one reads the environment and the shared
// config files, and parses $AWS_CA_BUNDLE when it is set, tens of
// milliseconds under -race for each of the hundreds of clients.
var configs sync.Map // endpoint -> aws.Config

func configFor(endpoint string) (aws.Config, error) {
	if cfg, ok := configs.Load(endpoint); ok {
		return cfg.(aws.Config), nil
	}
	cfg, err := tableops.LoadAWSConfig(context.Background(), endpoint)
	if err != nil {
		return aws.Config{}, err
	}
	stored, _ := configs.LoadOrStore(endpoint, cfg)
	return stored.(aws.Config), nil
}

// NewTable creates a fresh, uniquely named table for one test and deletes it
// when the test ends; it returns the table's name. The table is the
// template's without its stream: tests that read the stream use
// NewStreamedTable.
//
// DynamoDB Local writes a stream record for every write to a table with a
// stream, and finds the shard's first record by scanning every stream record
// the instance ever kept (its SQLite table of them has no index on the
// shard), dropped tables' included: each write then costs more than the
// last, and a test binary's later tests ran several times slower than its
// first. Without a stream a write costs the same all along. Nothing else
// about the table (keys, indexes, TTL, conditions, transactions) depends on
// the stream.
func NewTable(t testing.TB, client *dynamodb.Client) string {
	t.Helper()
	return newTable(t, client, false)
}

// NewStreamedTable is NewTable for a test that reads the table's stream:
// the table has the template's stream (new and old images).
func NewStreamedTable(t testing.TB, client *dynamodb.Client) string {
	t.Helper()
	return newTable(t, client, true)
}

func newTable(t testing.TB, client *dynamodb.Client, stream bool) string {
	t.Helper()
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "test-" + hex.EncodeToString(b[:])
	def := tableops.TableDefinition(name)
	if !stream {
		def.StreamSpecification = nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := tableops.CreateTableFrom(ctx, client, def); err != nil {
		t.Fatalf("create table: %v", err)
	}
	t.Cleanup(func() {
		_, _ = client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	return name
}

// NewStore returns a store over a fresh table (NewTable) and the counter of
// its round trips.
func NewStore(t testing.TB) (*dynamo.Store, *tableops.RoundTrips) {
	t.Helper()
	return newStore(t, NewTable)
}

// NewStreamedStore is NewStore over a table with a stream (NewStreamedTable).
func NewStreamedStore(t testing.TB) (*dynamo.Store, *tableops.RoundTrips) {
	t.Helper()
	return newStore(t, NewStreamedTable)
}

func newStore(t testing.TB, table func(testing.TB, *dynamodb.Client) string) (*dynamo.Store, *tableops.RoundTrips) {
	t.Helper()
	rt := &tableops.RoundTrips{}
	client := NewClient(t, rt)
	return dynamo.New(client, table(t, client)), rt
}
