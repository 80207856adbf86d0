package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Items are encoded through their dynamodbav tags: the stored attribute names
// are this package's own (items.go), independent of the API's field names.

// item is a map of attributes as DynamoDB sends and takes them.
type item = map[string]types.AttributeValue

// marshal encodes an item; it fails only on a type the encoder cannot handle.
func marshal(v any) (item, error) {
	m, err := attributevalue.MarshalMap(v)
	if err != nil {
		return nil, fmt.Errorf("marshal %T: %w", v, err)
	}
	return m, nil
}

// unmarshal decodes a stored item into v.
func unmarshal(m item, v any) error {
	if err := attributevalue.UnmarshalMap(m, v); err != nil {
		return fmt.Errorf("unmarshal %T: %w", v, err)
	}
	return nil
}

// key returns the primary key of an item.
func key(pk, sk string) item {
	return item{attrPK: &types.AttributeValueMemberS{Value: pk}, attrSK: &types.AttributeValueMemberS{Value: sk}}
}

// storedTime is how an item holds a timestamp: workspace.TimeFormat, which
// sorts as text in time order, so conditions and sort keys compare it.
func storedTime(t time.Time) string { return workspace.FormatTime(t) }

// loadedTime reads a stored timestamp; an unparsable one reads as the zero
// time, which every caller treats as long past (fail closed).
func loadedTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

// epoch returns t as the epoch seconds the table's TTL attribute takes; 0 (no
// expiry) for the zero time.
func epoch(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}

// unixTime reads a TTL attribute back.
func unixTime(sec int64) time.Time { return time.Unix(sec, 0).UTC() }

// built is a built expression: condition, update, key condition, filter,
// projection, with their placeholders.
type built = expression.Expression

// build builds an expression; its only failures are programming errors (an
// empty builder), reported as errors all the same.
func build(b expression.Builder) (built, error) {
	e, err := b.Build()
	if err != nil {
		return built{}, fmt.Errorf("build expression: %w", err)
	}
	return e, nil
}

// keyQuery is the Query of the items kc selects, on index ("" for the table).
func (s *Store) keyQuery(index string, kc expression.KeyConditionBuilder) (*dynamodb.QueryInput, error) {
	e, err := build(expression.NewBuilder().WithKeyCondition(kc))
	if err != nil {
		return nil, err
	}
	in := &dynamodb.QueryInput{TableName: aws.String(s.table), KeyConditionExpression: e.KeyCondition(),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values()}
	if index != "" {
		in.IndexName = aws.String(index)
	}
	return in, nil
}

// conditionalUpdate is the UpdateItem of the item at k that applies e's
// update under e's condition.
func (s *Store) conditionalUpdate(k item, e built) *dynamodb.UpdateItemInput {
	return &dynamodb.UpdateItemInput{TableName: aws.String(s.table), Key: k,
		UpdateExpression: e.Update(), ConditionExpression: e.Condition(),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values()}
}

// withAllValues makes an UpdateItem return the item after it, or, when its
// condition fails, before it.
func withAllValues(in *dynamodb.UpdateItemInput) *dynamodb.UpdateItemInput {
	in.ReturnValues = types.ReturnValueAllNew
	in.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	return in
}

// prefixed is the key condition of the items of partition pk whose sort keys
// begin with prefix.
func prefixed(pk, prefix string) expression.KeyConditionBuilder {
	return expression.Key(attrPK).Equal(expression.Value(pk)).And(expression.Key(attrSK).BeginsWith(prefix))
}

// Client returns the store's DynamoDB client, for the tools that operate
// its table outside the request path (infra/tableops).
func (s *Store) Client() *dynamodb.Client { return s.db }

// getItem reads the item at k with a strongly consistent GetItem and decodes
// it into an I; found is false when there is none.
func getItem[I any](ctx context.Context, s *Store, k item, what string) (it I, found bool, err error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.table), Key: k, ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return it, false, fmt.Errorf("get %s: %w", what, err)
	}
	if out.Item == nil {
		return it, false, nil
	}
	if err := unmarshal(out.Item, &it); err != nil {
		return it, false, err
	}
	return it, true, nil
}

// queryPageItems caps the items of one page of a long Query. DynamoDB ends a
// page at 1 MB anyway, about 2,000 of this table's items; DynamoDB Local,
// without a Limit, reads the whole rest of the range for every page, which
// makes listing n items cost O(n²) there (50,000 invitations: past API
// Gateway's 29 s). With it, both read each item once.
const queryPageItems = 2000

// queryAll runs in to its last page, one round trip a page, decoding each
// item into an I and mapping it with to. For bounded sets only: callers that
// list what grows with a tenant page with queryPage.
func queryAll[I, D any](ctx context.Context, s *Store, in *dynamodb.QueryInput, what string, to func(I) D) ([]D, error) {
	in.TableName = aws.String(s.table)
	if in.Limit == nil {
		in.Limit = aws.Int32(queryPageItems)
	}
	out := []D{}
	p := dynamodb.NewQueryPaginator(s.db, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("query %s: %w", what, err)
		}
		for _, raw := range page.Items {
			var it I
			if err := unmarshal(raw, &it); err != nil {
				return nil, err
			}
			out = append(out, to(it))
		}
	}
	return out, nil
}

// queryPage reads up to limit items of in after the item at start (nil: from
// the beginning), one round trip per 1 MB page, and says whether more follow.
// It reads one item past limit to know that, so the last page never hands out
// a cursor that leads nowhere.
func queryPage[I, D any](ctx context.Context, s *Store, in *dynamodb.QueryInput, start item, limit int, what string, to func(I) D) (
	got []D, more bool, err error) {
	in.TableName = aws.String(s.table)
	in.ExclusiveStartKey = start
	got = []D{}
	for {
		in.Limit = aws.Int32(int32(limit + 1 - len(got)))
		page, err := s.db.Query(ctx, in)
		if err != nil {
			return nil, false, fmt.Errorf("query %s: %w", what, err)
		}
		for _, raw := range page.Items {
			if len(got) == limit {
				return got, true, nil
			}
			var it I
			if err := unmarshal(raw, &it); err != nil {
				return nil, false, err
			}
			got = append(got, to(it))
		}
		if page.LastEvaluatedKey == nil {
			return got, false, nil
		}
		in.ExclusiveStartKey = page.LastEvaluatedKey
	}
}
