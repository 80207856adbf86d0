package dynamo

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// APIKey returns the key whose plaintext hashes to hash, or a KindNotFound
// error when there is none. One GetItem.
func (s *Store) APIKey(ctx context.Context, hash string) (workspace.APIKey, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.table), Key: key(keyPK(hash), skKey), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return workspace.APIKey{}, fmt.Errorf("get api key: %w", err)
	}
	if out.Item == nil {
		return workspace.APIKey{}, workspace.NotFound("API key not found")
	}
	var item apiKeyItem
	if err := unmarshal(out.Item, &item); err != nil {
		return workspace.APIKey{}, err
	}
	return item.domain(), nil
}

// Member returns a member of workspace ws, or a KindNotFound error when the
// user is not one. One GetItem.
func (s *Store) Member(ctx context.Context, ws, userID string) (workspace.Member, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(s.table), Key: key(wsPK(ws), memberSK(userID)), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return workspace.Member{}, fmt.Errorf("get member: %w", err)
	}
	if out.Item == nil {
		return workspace.Member{}, workspace.NotFound("member not found")
	}
	var item memberItem
	if err := unmarshal(out.Item, &item); err != nil {
		return workspace.Member{}, err
	}
	return item.domain(ws), nil
}

// CreateAPIKey stores a new key; it returns a KindConflict error when a key
// with the same hash exists.
func (s *Store) CreateAPIKey(ctx context.Context, k workspace.APIKey) error {
	item, err := marshal(newAPIKeyItem(k))
	if err != nil {
		return err
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(s.table), Item: item,
		ConditionExpression: aws.String("attribute_not_exists(PK)"),
	})
	if isConditionFailed(err) {
		return workspace.Conflict("an API key with this value exists")
	}
	if err != nil {
		return fmt.Errorf("put api key: %w", err)
	}
	return nil
}

// APIKeys lists the keys of workspace ws, ordered by key id.
func (s *Store) APIKeys(ctx context.Context, ws string) ([]workspace.APIKey, error) {
	var keys []workspace.APIKey
	p := dynamodb.NewQueryPaginator(s.db, &dynamodb.QueryInput{
		TableName: aws.String(s.table), IndexName: aws.String(IndexGSI1),
		KeyConditionExpression:    aws.String("GSI1PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(keysGSI1PK(ws))},
	})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("query api keys: %w", err)
		}
		for _, raw := range page.Items {
			var item apiKeyItem
			if err := unmarshal(raw, &item); err != nil {
				return nil, err
			}
			keys = append(keys, item.domain())
		}
	}
	return keys, nil
}

// SetAPIKeyDisabled disables or re-enables the key keyID of workspace ws; it
// returns a KindNotFound error when the workspace has no such key.
func (s *Store) SetAPIKeyDisabled(ctx context.Context, ws, keyID string, disabled bool) error {
	keys, err := s.APIKeys(ctx, ws)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if k.ID != keyID {
			continue
		}
		_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: aws.String(s.table), Key: key(keyPK(k.Hash), skKey),
			UpdateExpression:          aws.String("SET disabled = :d"),
			ConditionExpression:       aws.String("workspaceId = :ws AND id = :id"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":d": boolean(disabled), ":ws": str(ws), ":id": str(keyID)},
		})
		if isConditionFailed(err) {
			return workspace.NotFound("API key %s not found", keyID)
		}
		if err != nil {
			return fmt.Errorf("update api key: %w", err)
		}
		return nil
	}
	return workspace.NotFound("API key %s not found", keyID)
}

// isConditionFailed reports whether err is a failed condition of a single-item write.
func isConditionFailed(err error) bool {
	var ccf *types.ConditionalCheckFailedException
	return err != nil && errors.As(err, &ccf)
}
