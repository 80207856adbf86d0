package dynamo

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The service's cursor key (keys.go): the secret its list cursors are
// MACed with (httpapi.Cursors), made once for the table.
//
//	item                PK                SK          (secret: 32 random bytes)
//	cursor key          SERVICE#CURSORS   KEY
const (
	cursorKeyPK     = "SERVICE#CURSORS"
	attrSecret      = "secret"
	cursorKeyLength = 32
)

// CursorKey returns the table's cursor key, making it the first time: one
// PutItem of 32 fresh random bytes conditioned on the item being absent,
// which, when it is already there, answers the stored item instead
// (ReturnValuesOnConditionCheckFailure), so every caller gets the one key
// in one round trip, however many race to make it. Callers cache it for the
// life of their process (httpapi.Cursors); the IAM grant is this one
// PutItem on this one partition.
func (s *Store) CursorKey(ctx context.Context) ([]byte, error) {
	fresh := make([]byte, cursorKeyLength)
	if _, err := rand.Read(fresh); err != nil {
		return nil, fmt.Errorf("cursor key: %w", err)
	}
	absent, err := notExistsCond()
	if err != nil {
		return nil, err
	}
	it := key(cursorKeyPK, skKey)
	it[attrSecret] = &types.AttributeValueMemberB{Value: fresh}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(s.table), Item: it,
		ConditionExpression: absent.Condition(), ExpressionAttributeNames: absent.Names(),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	var ccf *types.ConditionalCheckFailedException
	switch {
	case err == nil:
		return fresh, nil
	case !errors.As(err, &ccf):
		return nil, fmt.Errorf("cursor key: %w", err)
	}
	stored, ok := ccf.Item[attrSecret].(*types.AttributeValueMemberB)
	if !ok || len(stored.Value) != cursorKeyLength {
		return nil, errors.New("cursor key: the stored item holds no key of 32 bytes")
	}
	return stored.Value, nil
}
