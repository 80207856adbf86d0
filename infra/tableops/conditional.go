package tableops

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/shared/dynamo"
)

// This file writes snapshots the way an operator's tool must write into a
// live table: never over an item. Every write is a Put conditional on the
// item's absence, so a counter (a workspace's seats used, its key count) that
// the API changed since is never reset, whatever runs at the same time; an
// item already there is compared, and the load fails on any difference before
// it writes anything.

// ErrWorkspaceExists is CreateSnapshot's error when the workspace is already
// in the table.
var ErrWorkspaceExists = errors.New("the workspace already exists")

// Difference is one way the table differs from what a load would write.
type Difference struct {
	Workspace string
	// Item names the item: "workspace", "member MEMBER#usr_ada", "apiKey key_1".
	Item string
	// Attribute is the attribute that differs; empty when the whole item is
	// missing from the table.
	Attribute string
	// Table and Load render the attribute's value in the table and in the
	// load ("(absent)" when it has none); a key's hash is never shown.
	Table, Load string
}

// String renders the difference on one line.
func (d Difference) String() string {
	if d.Attribute == "" {
		return fmt.Sprintf("%s: %s: missing from the table", d.Workspace, d.Item)
	}
	return fmt.Sprintf("%s: %s: %s: table %s, fixture %s", d.Workspace, d.Item, d.Attribute, d.Table, d.Load)
}

// DifferencesError is LoadSnapshots' error when the table holds items that
// differ from the load's: nothing was written.
type DifferencesError struct {
	Differences []Difference
}

// maxListedDifferences bounds the differences an error lists.
const maxListedDifferences = 50

// Error lists the differences, at most maxListedDifferences of them.
func (e *DifferencesError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the table differs from the fixture (%d differences); nothing was written", len(e.Differences))
	for i, d := range e.Differences {
		if i == maxListedDifferences {
			fmt.Fprintf(&b, "\n  ... and %d more", len(e.Differences)-i)
			break
		}
		b.WriteString("\n  ")
		b.WriteString(d.String())
	}
	return b.String()
}

// LoadResult is what LoadSnapshots did with one workspace.
type LoadResult struct {
	Workspace string
	// Existed tells that the workspace's item was in the table before the
	// load, every item equal to the load's: nothing was written.
	Existed bool
	// Created counts the items written.
	Created int
}

// LoadSnapshots writes snapshots into store's table without ever writing
// over an item. It first reads every item the snapshots stand for (strongly
// consistent BatchGetItem, 100 keys a call) and compares:
//
//   - a workspace whose item is in the table must have every item, each
//     equal to the snapshot's: it is left as it is (Existed);
//   - a workspace whose item is not (new, or a load cut short) gets the
//     items it lacks; those already there must be equal;
//   - any item that differs, or is missing from an existing workspace, fails
//     the whole load with a *DifferencesError before anything is written.
//
// The writes are TransactWriteItems of up to 100 Puts, each conditional on
// its item's absence (attribute_not_exists), the workspace's item last, so a
// workspace exists only once its items do. An item that appears between the
// read and the write cancels its transaction: nothing is overwritten then
// either, and the error says which items were already written (a new run
// finishes the load). Counters are never written over: seats used and key
// counts are only ever created.
func LoadSnapshots(ctx context.Context, store *dynamo.Store, snaps []Snapshot, now time.Time) ([]LoadResult, error) {
	itemsOf := make([][]map[string]types.AttributeValue, len(snaps))
	var keys []map[string]types.AttributeValue
	for i, snap := range snaps {
		items, err := snapshotItems(snap, now)
		if err != nil {
			return nil, err
		}
		itemsOf[i] = items
		for _, it := range items {
			keys = append(keys, map[string]types.AttributeValue{attrPK: it[attrPK], attrSK: it[attrSK]})
		}
	}
	found, err := getItems(ctx, store, keys)
	if err != nil {
		return nil, err
	}
	results := make([]LoadResult, len(snaps))
	missing := make([][]map[string]types.AttributeValue, len(snaps))
	var diffs []Difference
	for i, snap := range snaps {
		ws := snap.Workspace.ID
		items := itemsOf[i]
		_, existed := found[itemKey(items[len(items)-1])] // the workspace item is last
		results[i] = LoadResult{Workspace: ws, Existed: existed}
		for _, want := range items {
			have, ok := found[itemKey(want)]
			switch {
			case !ok && existed:
				diffs = append(diffs, Difference{Workspace: ws, Item: describeItem(want)})
			case !ok:
				missing[i] = append(missing[i], want)
			default:
				diffs = append(diffs, compareItems(ws, have, want)...)
			}
		}
	}
	if len(diffs) > 0 {
		return nil, &DifferencesError{Differences: diffs}
	}
	for i := range snaps {
		written, err := putAbsent(ctx, store, missing[i])
		results[i].Created = written
		if err != nil {
			return results, fmt.Errorf("workspace %s: %w", results[i].Workspace, err)
		}
	}
	return results, nil
}

// CreateSnapshot writes a new workspace's items in one transaction, each Put
// conditional on its item's absence: ErrWorkspaceExists when the workspace
// is in the table, an error naming the items when others are; nothing is
// written then. The snapshot must fit in one transaction (100 items).
func CreateSnapshot(ctx context.Context, store *dynamo.Store, snap Snapshot, now time.Time) error {
	items, err := snapshotItems(snap, now)
	if err != nil {
		return err
	}
	if len(items) > maxTransactItems {
		return fmt.Errorf("create workspace %s: %d items do not fit in one transaction (at most %d)", snap.Workspace.ID, len(items), maxTransactItems)
	}
	err = transactPutNew(ctx, store, items)
	var taken *takenError
	if errors.As(err, &taken) && slices.Contains(taken.items, describeItem(items[len(items)-1])) {
		return fmt.Errorf("create workspace %s: %w", snap.Workspace.ID, ErrWorkspaceExists)
	}
	if err != nil {
		return fmt.Errorf("create workspace %s: %w", snap.Workspace.ID, err)
	}
	return nil
}

// takenError is a transaction cancelled because some of its items exist.
type takenError struct{ items []string }

func (e *takenError) Error() string {
	return "already in the table, and not written over: " + strings.Join(e.items, ", ")
}

// putAbsent writes items, each conditional on its absence, 100 a
// transaction, in order; it returns how many it wrote.
func putAbsent(ctx context.Context, store *dynamo.Store, items []map[string]types.AttributeValue) (int, error) {
	written := 0
	for start := 0; start < len(items); start += maxTransactItems {
		chunk := items[start:min(start+maxTransactItems, len(items))]
		if err := transactPutNew(ctx, store, chunk); err != nil {
			if written > 0 {
				return written, fmt.Errorf("%w (%d items of the load were written before; run it again to finish it)", err, written)
			}
			return written, err
		}
		written += len(chunk)
	}
	return written, nil
}

// transactPutNew puts items in one transaction, each conditional on its
// absence; a *takenError names those that were there.
func transactPutNew(ctx context.Context, store *dynamo.Store, items []map[string]types.AttributeValue) error {
	ops := make([]types.TransactWriteItem, len(items))
	for i, it := range items {
		ops[i] = types.TransactWriteItem{Put: &types.Put{
			TableName: aws.String(store.Table()), Item: it,
			ConditionExpression: aws.String("attribute_not_exists(" + attrPK + ")"),
		}}
	}
	_, err := store.Client().TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: ops})
	var cancelled *types.TransactionCanceledException
	if errors.As(err, &cancelled) {
		var taken []string
		for i, r := range cancelled.CancellationReasons {
			if aws.ToString(r.Code) == "ConditionalCheckFailed" && i < len(items) {
				taken = append(taken, describeItem(items[i]))
			}
		}
		if len(taken) > 0 {
			return &takenError{items: taken}
		}
	}
	if err != nil {
		return fmt.Errorf("transact write: %w", err)
	}
	return nil
}

// maxBatchGet is BatchGetItem's limit of keys per call.
const maxBatchGet = 100

// getItems reads the items at keys with strongly consistent BatchGetItem
// calls, 100 keys each, retrying unprocessed keys, and returns those found
// by itemKey.
func getItems(ctx context.Context, store *dynamo.Store, keys []map[string]types.AttributeValue) (map[[2]string]map[string]types.AttributeValue, error) {
	found := make(map[[2]string]map[string]types.AttributeValue, len(keys))
	for start := 0; start < len(keys); start += maxBatchGet {
		pending := map[string]types.KeysAndAttributes{store.Table(): {
			Keys: keys[start:min(start+maxBatchGet, len(keys))], ConsistentRead: aws.Bool(true),
		}}
		for attempt := 0; len(pending) > 0; attempt++ {
			if attempt > maxUnprocessedRetries {
				return nil, errors.New("batch get: keys still unprocessed after retries")
			}
			if attempt > 0 {
				pause(ctx, attempt)
			}
			out, err := store.Client().BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: pending})
			if err != nil {
				return nil, fmt.Errorf("batch get: %w", err)
			}
			for _, it := range out.Responses[store.Table()] {
				found[itemKey(it)] = it
			}
			pending = out.UnprocessedKeys
		}
	}
	return found, nil
}

// itemKey is an item's primary key.
func itemKey(it map[string]types.AttributeValue) [2]string {
	return [2]string{keyOf(it, attrPK), keyOf(it, attrSK)}
}

// Attributes whose values a difference never shows: an API key item's
// partition key and a key reference's keyHash hold the key's hash.
const (
	attrEntity     = "entity"
	attrKeyHash    = "keyHash"
	entityAPIKey   = "apiKey"
	entityKeyRef   = "apiKeyRef"
	entityWS       = "workspace"
	hiddenValue    = "(a key's hash, not shown)"
	absentValue    = "(absent)"
	maxValueLength = 120
)

// describeItem names an item for an operator: its entity and sort key, or
// the id of an API key (whose partition key is its hash).
func describeItem(it map[string]types.AttributeValue) string {
	entity := keyOf(it, attrEntity)
	switch entity {
	case entityWS:
		return entity
	case entityAPIKey, entityKeyRef:
		return entity + " " + keyOf(it, "id")
	}
	return entity + " " + keyOf(it, attrSK)
}

// compareItems returns the differences between the stored item have and
// the item want, attribute by attribute, in attribute name order.
func compareItems(ws string, have, want map[string]types.AttributeValue) []Difference {
	names := make([]string, 0, len(want)+len(have))
	for n := range want {
		names = append(names, n)
	}
	for n := range have {
		if _, ok := want[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	var diffs []Difference
	for _, n := range names {
		if equalValue(have[n], want[n]) {
			continue
		}
		d := Difference{Workspace: ws, Item: describeItem(want), Attribute: n, Table: renderValue(have[n]), Load: renderValue(want[n])}
		if n == attrKeyHash || (n == attrPK && keyOf(want, attrEntity) == entityAPIKey) {
			d.Table, d.Load = hiddenValue, hiddenValue
		}
		diffs = append(diffs, d)
	}
	return diffs
}

// equalValue reports whether two attribute values are equal as DynamoDB
// compares them: numbers by value, sets whatever their order; nil is absent.
func equalValue(a, b types.AttributeValue) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case *types.AttributeValueMemberS:
		y, ok := b.(*types.AttributeValueMemberS)
		return ok && x.Value == y.Value
	case *types.AttributeValueMemberN:
		y, ok := b.(*types.AttributeValueMemberN)
		return ok && equalNumber(x.Value, y.Value)
	case *types.AttributeValueMemberBOOL:
		y, ok := b.(*types.AttributeValueMemberBOOL)
		return ok && x.Value == y.Value
	case *types.AttributeValueMemberNULL:
		_, ok := b.(*types.AttributeValueMemberNULL)
		return ok
	case *types.AttributeValueMemberB:
		y, ok := b.(*types.AttributeValueMemberB)
		return ok && string(x.Value) == string(y.Value)
	case *types.AttributeValueMemberSS:
		y, ok := b.(*types.AttributeValueMemberSS)
		return ok && sameSet(x.Value, y.Value, func(p, q string) bool { return p == q })
	case *types.AttributeValueMemberNS:
		y, ok := b.(*types.AttributeValueMemberNS)
		return ok && sameSet(x.Value, y.Value, equalNumber)
	case *types.AttributeValueMemberBS:
		y, ok := b.(*types.AttributeValueMemberBS)
		return ok && sameSet(x.Value, y.Value, func(p, q []byte) bool { return string(p) == string(q) })
	case *types.AttributeValueMemberL:
		y, ok := b.(*types.AttributeValueMemberL)
		return ok && slices.EqualFunc(x.Value, y.Value, equalValue)
	case *types.AttributeValueMemberM:
		y, ok := b.(*types.AttributeValueMemberM)
		if !ok || len(x.Value) != len(y.Value) {
			return false
		}
		for k, v := range x.Value {
			if w, ok := y.Value[k]; !ok || !equalValue(v, w) {
				return false
			}
		}
		return true
	}
	return false
}

// equalNumber compares two DynamoDB numbers by value ("5" equals "5.0").
func equalNumber(a, b string) bool {
	x, okA := new(big.Rat).SetString(a)
	y, okB := new(big.Rat).SetString(b)
	if !okA || !okB {
		return a == b
	}
	return x.Cmp(y) == 0
}

// sameSet reports whether two sets (without repeats, as DynamoDB keeps
// them) hold the same elements.
func sameSet[T any](a, b []T, eq func(T, T) bool) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.ContainsFunc(b, func(y T) bool { return eq(x, y) }) {
			return false
		}
	}
	return true
}

// renderValue renders an attribute value for a difference, shortened.
func renderValue(v types.AttributeValue) string {
	var b strings.Builder
	writeValue(&b, v)
	s := b.String()
	if len(s) > maxValueLength {
		s = s[:maxValueLength] + "..."
	}
	return s
}

func writeValue(b *strings.Builder, v types.AttributeValue) {
	switch x := v.(type) {
	case nil:
		b.WriteString(absentValue)
	case *types.AttributeValueMemberS:
		b.WriteString(strconv.Quote(x.Value))
	case *types.AttributeValueMemberN:
		b.WriteString(x.Value)
	case *types.AttributeValueMemberBOOL:
		b.WriteString(strconv.FormatBool(x.Value))
	case *types.AttributeValueMemberNULL:
		b.WriteString("null")
	case *types.AttributeValueMemberSS:
		fmt.Fprintf(b, "%q", x.Value)
	case *types.AttributeValueMemberNS:
		fmt.Fprintf(b, "%v", x.Value)
	case *types.AttributeValueMemberL:
		b.WriteString("[")
		for i, e := range x.Value {
			if i > 0 {
				b.WriteString(", ")
			}
			writeValue(b, e)
		}
		b.WriteString("]")
	case *types.AttributeValueMemberM:
		names := make([]string, 0, len(x.Value))
		for k := range x.Value {
			names = append(names, k)
		}
		slices.Sort(names)
		b.WriteString("{")
		for i, k := range names {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(b, "%s: ", k)
			writeValue(b, x.Value[k])
		}
		b.WriteString("}")
	default:
		b.WriteString("(binary)")
	}
}
