package tableops

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/shared/dynamo"
)

// The key attributes of the table and its indexes (shared/dynamo/keys.go).
const (
	attrPK, attrSK         = "PK", "SK"
	attrGSI1PK, attrGSI1SK = "GSI1PK", "GSI1SK"
	attrGSI2PK, attrGSI2SK = "GSI2PK", "GSI2SK"
	attrGSI3PK, attrGSI3SK = "GSI3PK", "GSI3SK"
)

// defaultTableWait bounds the wait for a created table to become active.
const defaultTableWait = 2 * time.Minute

// TableDefinition returns the CreateTable input of the single table, the same
// schema as the Table resource of template.yaml (a test keeps them equal).
func TableDefinition(name string) *dynamodb.CreateTableInput {
	s := types.ScalarAttributeTypeS
	return &dynamodb.CreateTableInput{
		TableName:   aws.String(name),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String(attrPK), AttributeType: s},
			{AttributeName: aws.String(attrSK), AttributeType: s},
			{AttributeName: aws.String(attrGSI1PK), AttributeType: s},
			{AttributeName: aws.String(attrGSI1SK), AttributeType: s},
			{AttributeName: aws.String(attrGSI2PK), AttributeType: s},
			{AttributeName: aws.String(attrGSI2SK), AttributeType: s},
			{AttributeName: aws.String(attrGSI3PK), AttributeType: s},
			{AttributeName: aws.String(attrGSI3SK), AttributeType: s},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String(attrPK), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(attrSK), KeyType: types.KeyTypeRange},
		},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName: aws.String(dynamo.IndexGSI1),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String(attrGSI1PK), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String(attrGSI1SK), KeyType: types.KeyTypeRange},
			},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}, {
			IndexName: aws.String(dynamo.IndexGSI2),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String(attrGSI2PK), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String(attrGSI2SK), KeyType: types.KeyTypeRange},
			},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}, {
			IndexName: aws.String(dynamo.IndexGSI3),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String(attrGSI3PK), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String(attrGSI3SK), KeyType: types.KeyTypeRange},
			},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}},
		StreamSpecification: &types.StreamSpecification{
			StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages,
		},
	}
}

// CreateTable creates the single table named name and waits until it is
// active; an existing table of that name is left as it is. It returns the
// service's error when the table can be neither created nor found.
func CreateTable(ctx context.Context, client *dynamodb.Client, name string) error {
	return CreateTableFrom(ctx, client, TableDefinition(name))
}

// CreateTableFrom is CreateTable for a definition made from TableDefinition
// and changed (tests leave out the stream where nothing reads it).
func CreateTableFrom(ctx context.Context, client *dynamodb.Client, def *dynamodb.CreateTableInput) error {
	name := aws.ToString(def.TableName)
	_, err := client.CreateTable(ctx, def)
	var inUse *types.ResourceInUseException
	if err != nil && !errors.As(err, &inUse) {
		return fmt.Errorf("create table %s: %w", name, err)
	}
	// TTL is best effort: DynamoDB Local accepts it, some emulators do not.
	_, _ = client.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName: aws.String(name),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{
			AttributeName: aws.String(dynamo.AttrTTL), Enabled: aws.Bool(true),
		},
	})
	w := dynamodb.NewTableExistsWaiter(client)
	if err := w.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, defaultTableWait); err != nil {
		return fmt.Errorf("wait for table %s: %w", name, err)
	}
	return nil
}
