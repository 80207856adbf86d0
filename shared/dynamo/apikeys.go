package dynamo

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// APIKey returns the key whose plaintext hashes to hash, or a KindNotFound
// error when there is none. One GetItem.
func (s *Store) APIKey(ctx context.Context, hash string) (workspace.APIKey, error) {
	it, found, err := getItem[apiKeyItem](ctx, s, key(keyPK(hash), skKey), "api key")
	if err != nil {
		return workspace.APIKey{}, err
	}
	if !found {
		return workspace.APIKey{}, workspace.ErrAPIKeyNotFound
	}
	return it.domain(), nil
}

// Member returns a member of workspace ws, or a KindNotFound error when the
// user is not one. One GetItem.
func (s *Store) Member(ctx context.Context, ws, userID string) (workspace.Member, error) {
	it, found, err := getItem[memberItem](ctx, s, key(wsPK(ws), memberSK(userID)), "member")
	if err != nil {
		return workspace.Member{}, err
	}
	if !found {
		return workspace.Member{}, workspace.ErrMemberNotFound
	}
	m := it.domain()
	m.WorkspaceID = ws
	return m, nil
}

// CreateAPIKey stores a new key; it returns a KindConflict error when a key
// with the same hash exists.
func (s *Store) CreateAPIKey(ctx context.Context, k workspace.APIKey) error {
	it, err := marshal(toAPIKeyItem(k))
	if err != nil {
		return err
	}
	e, err := build(expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(attrPK))))
	if err != nil {
		return err
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(s.table), Item: it, ConditionExpression: e.Condition(),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
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
	e, err := build(expression.NewBuilder().WithKeyCondition(expression.Key(attrGSI1PK).Equal(expression.Value(keysGSI1PK(ws)))))
	if err != nil {
		return nil, err
	}
	return queryAll(ctx, s, &dynamodb.QueryInput{
		IndexName: aws.String(IndexGSI1), KeyConditionExpression: e.KeyCondition(),
		ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
	}, "api keys", apiKeyItem.domain)
}

// SetAPIKeyDisabled disables or re-enables the key keyID of workspace ws; it
// returns a KindNotFound error when the workspace has no such key. It finds
// the key through GSI1, which is eventually consistent: an operator's tool,
// never a request path.
func (s *Store) SetAPIKeyDisabled(ctx context.Context, ws, keyID string, disabled bool) error {
	keys, err := s.APIKeys(ctx, ws)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if k.ID != keyID {
			continue
		}
		e, err := build(expression.NewBuilder().
			WithUpdate(expression.Set(expression.Name(attrDisabled), expression.Value(disabled))).
			WithCondition(expression.Name(attrWorkspace).Equal(expression.Value(ws)).
				And(expression.Name(attrID).Equal(expression.Value(keyID)))))
		if err != nil {
			return err
		}
		_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: aws.String(s.table), Key: key(keyPK(k.Hash), skKey),
			UpdateExpression: e.Update(), ConditionExpression: e.Condition(),
			ExpressionAttributeNames: e.Names(), ExpressionAttributeValues: e.Values(),
		})
		if isConditionFailed(err) {
			return workspace.ErrAPIKeyNotFound
		}
		if err != nil {
			return fmt.Errorf("update api key: %w", err)
		}
		return nil
	}
	return workspace.ErrAPIKeyNotFound
}

// isConditionFailed reports whether err is a failed condition of a single-item write.
func isConditionFailed(err error) bool {
	var ccf *types.ConditionalCheckFailedException
	return err != nil && errors.As(err, &ccf)
}
