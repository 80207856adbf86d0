// Package localstream stands in for a Lambda event source mapping on a
// DynamoDB stream where Lambda does not run: it reads the table's stream in
// DynamoDB Local, applies the event source's filter, and invokes the
// function with the records as Lambda delivers them ({"Records": [...]}).
// Like Lambda with ReportBatchItemFailures, a batch that fails part way is
// delivered again from its lowest failed sequence number, and a function
// error delivers the whole batch again, so a record is processed at least
// once and in order per shard.
package localstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/agentplatform/workspaceapi/infra/localgw"
	"github.com/agentplatform/workspaceapi/infra/tableops"
	"github.com/agentplatform/workspaceapi/shared/limitevents"
)

// Streams is the part of the DynamoDB Streams client the poller uses.
type Streams interface {
	ListStreams(ctx context.Context, in *dynamodbstreams.ListStreamsInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.ListStreamsOutput, error)
	DescribeStream(ctx context.Context, in *dynamodbstreams.DescribeStreamInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.DescribeStreamOutput, error)
	GetShardIterator(ctx context.Context, in *dynamodbstreams.GetShardIteratorInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetShardIteratorOutput, error)
	GetRecords(ctx context.Context, in *dynamodbstreams.GetRecordsInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error)
}

// Invoke invokes the function with an event and returns its JSON result.
type Invoke func(ctx context.Context, event []byte) ([]byte, error)

// Source is one event source mapping: the table whose stream feeds the
// function, and the mapping's settings.
type Source struct {
	Table string
	// Filter is the mapping's filter pattern (FilterCriteria), as in the
	// template; empty lets every record through.
	Filter string
	// BatchSize is the most records one invocation gets (default 100).
	BatchSize int
	// Interval is how often the stream is read (default 100 ms).
	Interval time.Duration
	Logger   *slog.Logger // default slog.Default()
}

// record is one stream record: its sequence number (for ordering and
// failures) and its form as Lambda delivers it.
type record struct {
	seq   string
	event map[string]any
}

// shard is a shard being read: its iterator (empty once closed and read to
// its end) and the records read but not yet processed, in order.
type shard struct {
	iterator string
	pending  []record
}

// Run feeds invoke from the stream of src.Table until ctx ends. It survives
// a table or stream that is not there yet, or one that goes away (a
// restarted DynamoDB Local): it finds the stream again.
func Run(ctx context.Context, client Streams, src Source, invoke Invoke) {
	run(ctx, client, src, invoke, nil)
}

// run is Run that also reads the stream at once, and closes the channel it
// is handed, each time syncs hands it one.
func run(ctx context.Context, client Streams, src Source, invoke Invoke, syncs <-chan chan struct{}) {
	if src.BatchSize <= 0 {
		src.BatchSize = 100
	}
	if src.Interval <= 0 {
		src.Interval = 100 * time.Millisecond
	}
	logger := src.Logger
	if logger == nil {
		logger = slog.Default()
	}
	var pattern map[string]any
	if src.Filter != "" {
		if err := json.Unmarshal([]byte(src.Filter), &pattern); err != nil {
			logger.Error("stream poller: the filter is not a JSON pattern; nothing is delivered", "error", err)
			return
		}
	}
	p := &poller{client: client, src: src, invoke: invoke, pattern: pattern, logger: logger, shards: map[string]*shard{}}
	var done chan struct{} // a Sync waiting for this round
	for {
		if err := p.poll(ctx); err != nil && ctx.Err() == nil {
			logger.Debug("stream poller: reading the stream again", "table", src.Table, "error", err)
			p.streamARN, p.shards, p.order = "", map[string]*shard{}, nil
		}
		if done != nil {
			close(done)
			done = nil
		}
		select {
		case <-ctx.Done():
			return
		case done = <-syncs:
		case <-time.After(src.Interval):
		}
	}
}

type poller struct {
	client    Streams
	src       Source
	invoke    Invoke
	pattern   map[string]any
	logger    *slog.Logger
	streamARN string
	shards    map[string]*shard
	order     []string // shard ids, parents before children
}

// poll reads what every shard has and delivers it.
func (p *poller) poll(ctx context.Context) error {
	if p.streamARN == "" {
		out, err := p.client.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String(p.src.Table)})
		if err != nil {
			return err
		}
		if len(out.Streams) == 0 {
			return errors.New("the table has no stream yet")
		}
		p.streamARN = aws.ToString(out.Streams[len(out.Streams)-1].StreamArn)
	}
	desc, err := p.client.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(p.streamARN)})
	if err != nil {
		return err
	}
	for _, s := range desc.StreamDescription.Shards {
		id := aws.ToString(s.ShardId)
		if _, known := p.shards[id]; known {
			continue
		}
		it, err := p.client.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{
			StreamArn: aws.String(p.streamARN), ShardId: aws.String(id), ShardIteratorType: types.ShardIteratorTypeTrimHorizon,
		})
		if err != nil {
			return err
		}
		p.shards[id] = &shard{iterator: aws.ToString(it.ShardIterator)}
		p.order = append(p.order, id)
	}
	for _, id := range p.order {
		if err := p.read(ctx, p.shards[id]); err != nil {
			return err
		}
		p.deliver(ctx, p.shards[id])
	}
	return nil
}

// read appends the shard's new records to its pending ones.
func (p *poller) read(ctx context.Context, s *shard) error {
	for s.iterator != "" {
		out, err := p.client.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(s.iterator)})
		if err != nil {
			return err
		}
		s.iterator = aws.ToString(out.NextShardIterator)
		for _, r := range out.Records {
			s.pending = append(s.pending, record{seq: aws.ToString(r.Dynamodb.SequenceNumber), event: lambdaRecord(p.streamARN, r)})
		}
		if len(out.Records) == 0 {
			return nil
		}
	}
	return nil
}

// deliver invokes the function with the shard's pending records that pass
// the filter, a batch at a time, until one fails.
func (p *poller) deliver(ctx context.Context, s *shard) {
	for len(s.pending) > 0 {
		var batch []record
		last := len(s.pending) // the records up to here are settled by this batch
		for i, r := range s.pending {
			if !matches(p.pattern, r.event) {
				continue
			}
			if len(batch) == p.src.BatchSize {
				last = i
				break
			}
			batch = append(batch, r)
		}
		if len(batch) == 0 {
			s.pending = s.pending[:0]
			return
		}
		events := make([]map[string]any, len(batch))
		for i, r := range batch {
			events[i] = r.event
		}
		payload, _ := json.Marshal(map[string]any{"Records": events}) // maps of JSON values always marshal
		out, err := p.invoke(ctx, payload)
		if err != nil {
			p.logger.Error("stream poller: the function failed; the batch is delivered again", "error", err)
			return
		}
		var res struct {
			BatchItemFailures []struct {
				ItemIdentifier string `json:"itemIdentifier"`
			} `json:"batchItemFailures"`
		}
		if err := json.Unmarshal(out, &res); err != nil {
			p.logger.Error("stream poller: the function's answer is not a batch response; the batch is delivered again", "error", err)
			return
		}
		if len(res.BatchItemFailures) == 0 {
			s.pending = slices.Delete(s.pending, 0, last)
			continue
		}
		// Lambda delivers again from the lowest failed sequence number.
		lowest := ""
		for _, f := range res.BatchItemFailures {
			if lowest == "" || seqLess(f.ItemIdentifier, lowest) {
				lowest = f.ItemIdentifier
			}
		}
		i := slices.IndexFunc(s.pending, func(r record) bool { return r.seq == lowest })
		if i < 0 {
			p.logger.Error("stream poller: a failure names no record of the batch; the batch is delivered again", "itemIdentifier", lowest)
			return
		}
		s.pending = slices.Delete(s.pending, 0, i)
		return // the rest waits for the next poll
	}
}

// seqLess orders sequence numbers (decimal strings of any length).
func seqLess(a, b string) bool {
	x, okA := new(big.Int).SetString(a, 10)
	y, okB := new(big.Int).SetString(b, 10)
	if !okA || !okB {
		return a < b
	}
	return x.Cmp(y) < 0
}

// matches reports whether event matches an event filter pattern: every key
// of the pattern must be in the event; a list matches a value equal to one
// of its elements, an object the event's object at that key.
func matches(pattern map[string]any, event map[string]any) bool {
	for k, want := range pattern {
		got, ok := event[k]
		if !ok {
			return false
		}
		switch w := want.(type) {
		case map[string]any:
			sub, ok := got.(map[string]any)
			if !ok || !matches(w, sub) {
				return false
			}
		case []any:
			if !slices.ContainsFunc(w, func(v any) bool { return fmt.Sprint(v) == fmt.Sprint(got) }) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// lambdaRecord is r as Lambda's event source delivers it.
func lambdaRecord(streamARN string, r types.Record) map[string]any {
	d := r.Dynamodb
	change := map[string]any{
		"SequenceNumber": aws.ToString(d.SequenceNumber), "SizeBytes": aws.ToInt64(d.SizeBytes),
		"StreamViewType": string(d.StreamViewType), "Keys": image(d.Keys),
	}
	if d.ApproximateCreationDateTime != nil {
		change["ApproximateCreationDateTime"] = d.ApproximateCreationDateTime.Unix()
	}
	if d.NewImage != nil {
		change["NewImage"] = image(d.NewImage)
	}
	if d.OldImage != nil {
		change["OldImage"] = image(d.OldImage)
	}
	rec := map[string]any{
		"eventID": aws.ToString(r.EventID), "eventName": string(r.EventName), "eventVersion": aws.ToString(r.EventVersion),
		"eventSource": "aws:dynamodb", "awsRegion": aws.ToString(r.AwsRegion), "eventSourceARN": streamARN, "dynamodb": change,
	}
	if r.UserIdentity != nil {
		rec["userIdentity"] = map[string]any{"type": aws.ToString(r.UserIdentity.Type), "principalId": aws.ToString(r.UserIdentity.PrincipalId)}
	}
	return rec
}

func image(m map[string]types.AttributeValue) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = value(v)
	}
	return out
}

// value is an attribute value in DynamoDB's JSON form ({"S": "..."}).
func value(v types.AttributeValue) map[string]any {
	switch a := v.(type) {
	case *types.AttributeValueMemberS:
		return map[string]any{"S": a.Value}
	case *types.AttributeValueMemberN:
		return map[string]any{"N": a.Value}
	case *types.AttributeValueMemberBOOL:
		return map[string]any{"BOOL": a.Value}
	case *types.AttributeValueMemberNULL:
		return map[string]any{"NULL": a.Value}
	case *types.AttributeValueMemberB:
		return map[string]any{"B": a.Value}
	case *types.AttributeValueMemberSS:
		return map[string]any{"SS": a.Value}
	case *types.AttributeValueMemberNS:
		return map[string]any{"NS": a.Value}
	case *types.AttributeValueMemberBS:
		return map[string]any{"BS": a.Value}
	case *types.AttributeValueMemberL:
		list := make([]any, len(a.Value))
		for i, e := range a.Value {
			list[i] = value(e)
		}
		return map[string]any{"L": list}
	case *types.AttributeValueMemberM:
		return map[string]any{"M": image(a.Value)}
	}
	return map[string]any{"NULL": true}
}

// NewClient returns a DynamoDB Streams client of the DynamoDB at endpoint
// (DynamoDB Local serves its streams at its own address).
func NewClient(ctx context.Context, endpoint string) (*dynamodbstreams.Client, error) {
	cfg, err := tableops.LoadAWSConfig(ctx, endpoint)
	if err != nil {
		return nil, err
	}
	return dynamodbstreams.NewFromConfig(cfg, func(o *dynamodbstreams.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
		}
	}), nil
}

// Feeds are the pollers of a stack: one per DynamoDB event of its
// template. Its zero value is ready to Start.
type Feeds struct {
	wg    sync.WaitGroup
	mu    sync.Mutex
	syncs []chan chan struct{}
}

// Start runs a poller for every function the template's DynamoDB events
// feed from table's stream, each invoking its function through gw, until
// ctx ends (Wait waits for them).
func (f *Feeds) Start(ctx context.Context, client Streams, table string, tmpl *localgw.Template, gw *localgw.Gateway, logger *slog.Logger) {
	for _, src := range tmpl.StreamSources() {
		fn := src.FunctionID
		syncs := make(chan chan struct{})
		f.mu.Lock()
		f.syncs = append(f.syncs, syncs)
		f.mu.Unlock()
		f.wg.Go(func() {
			run(ctx, client, Source{Table: table, Filter: src.Filter, BatchSize: src.BatchSize, Logger: logger},
				func(ctx context.Context, event []byte) ([]byte, error) { return gw.Invoke(ctx, fn, event) }, syncs)
		})
	}
}

// Wait blocks until the pollers have stopped.
func (f *Feeds) Wait() { f.wg.Wait() }

// Sync has every poller read its stream and deliver what it holds now, and
// waits for them (or ctx): what was written before Sync was called has been
// handed to its function once it returns (unless the function failed it).
func (f *Feeds) Sync(ctx context.Context) {
	f.mu.Lock()
	syncs := append([]chan chan struct{}(nil), f.syncs...)
	f.mu.Unlock()
	for _, s := range syncs {
		done := make(chan struct{})
		select {
		case s <- done:
		case <-ctx.Done():
			return
		}
		select {
		case <-done:
		case <-ctx.Done():
			return
		}
	}
}

// EventSource is what lists the events a bus took.
type EventSource interface {
	Events() []limitevents.Published
}

// Log is the local bus as GET /_local/events lists it: the events src took,
// after the pollers delivered everything written so far, so a change a
// client made before asking is listed (within syncWait).
func (f *Feeds) Log(src EventSource) localgw.EventLog { return syncedLog{feeds: f, src: src} }

// syncWait bounds how long a listing waits for the pollers.
const syncWait = 5 * time.Second

type syncedLog struct {
	feeds *Feeds
	src   EventSource
}

// Events syncs the pollers, then lists.
func (l syncedLog) Events() []limitevents.Published {
	ctx, cancel := context.WithTimeout(context.Background(), syncWait)
	defer cancel()
	l.feeds.Sync(ctx)
	return l.src.Events()
}
