package tableops

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Release1 turns items of workspace ws written by this release back into
// the shapes release 1.0.0 wrote, so a test can make the migrations write
// (shared/migrate): key keyID loses its reference and its place in the key
// count and is listed on GSI1 (WS#<ws>#KEYS) again; agent agentID's month
// usage items lose the usage listings' keys; team teamID's name claim moves
// to a key release 1 could have written (the name's full-width form). For
// tests only: it writes item by item, unconditionally.
func Release1(ctx context.Context, store *dynamo.Store, ws, keyID, agentID, teamID string) error {
	db, table := store.Client(), aws.String(store.Table())
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	k := func(pk, sk string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"PK": s(pk), "SK": s(sk)}
	}
	wsPK := "WS#" + ws

	ref, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: table, Key: k(wsPK, "APIKEY#"+keyID), ReturnValues: types.ReturnValueAllOld})
	if err != nil || ref.Attributes == nil {
		return fmt.Errorf("release 1: key %s's reference: %v", keyID, err)
	}
	hash := ref.Attributes["keyHash"].(*types.AttributeValueMemberS).Value
	if _, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: table, Key: k(wsPK, "KEYCOUNT"),
		UpdateExpression:          aws.String("ADD #c :minus"),
		ExpressionAttributeNames:  map[string]string{"#c": "count"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":minus": &types.AttributeValueMemberN{Value: "-1"}}}); err != nil {
		return err
	}
	if _, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: table, Key: k("KEY#"+hash, "KEY"),
		UpdateExpression:          aws.String("SET GSI1PK = :pk, GSI1SK = :sk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": s(wsPK + "#KEYS"), ":sk": s("KEY#" + keyID)}}); err != nil {
		return err
	}

	months, err := db.Query(ctx, &dynamodb.QueryInput{TableName: table,
		KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :usage)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": s(wsPK + "#AGENTDATA#" + agentID), ":usage": s("USAGE#")}})
	if err != nil {
		return err
	}
	for _, m := range months.Items {
		if _, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: table, Key: k(keyOf(m, attrPK), keyOf(m, attrSK)),
			UpdateExpression: aws.String("REMOVE GSI1PK, GSI1SK, GSI2PK, GSI2SK, agentId, teamId")}); err != nil {
			return err
		}
	}

	team, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: table, Key: k(wsPK, "TEAM#"+teamID), ConsistentRead: aws.Bool(true)})
	if err != nil || team.Item == nil {
		return fmt.Errorf("release 1: team %s: %v", teamID, err)
	}
	name := team.Item["name"].(*types.AttributeValueMemberS).Value
	if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: table, Key: k(wsPK, "TEAMNAME#"+workspace.TeamNameKey(name))}); err != nil {
		return err
	}
	wide := strings.Map(func(r rune) rune {
		if r > ' ' && r <= '~' {
			return r + 0xFEE0 // the full-width form, which release 1 did not fold
		}
		return r
	}, strings.ToLower(name))
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: table, Item: map[string]types.AttributeValue{
		"PK": s(wsPK), "SK": s("TEAMNAME#" + wide), "entity": s("teamName"), "teamId": s(teamID)}})
	return err
}
