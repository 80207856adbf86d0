package dynamo

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Items are encoded with their json tags, so the stored attributes carry the
// same names as the API's fields.
func useJSONTags(o *attributevalue.EncoderOptions)    { o.TagKey = "json" }
func decodeJSONTags(o *attributevalue.DecoderOptions) { o.TagKey = "json" }

// marshal encodes an item; it fails only on a type the encoder cannot handle.
func marshal(v any) (map[string]types.AttributeValue, error) {
	m, err := attributevalue.MarshalMapWithOptions(v, useJSONTags)
	if err != nil {
		return nil, fmt.Errorf("marshal %T: %w", v, err)
	}
	return m, nil
}

// unmarshal decodes a stored item into v.
func unmarshal(m map[string]types.AttributeValue, v any) error {
	if err := attributevalue.UnmarshalMapWithOptions(m, v, decodeJSONTags); err != nil {
		return fmt.Errorf("unmarshal %T: %w", v, err)
	}
	return nil
}

// key returns the primary key of an item.
func key(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		attrPK: &types.AttributeValueMemberS{Value: pk},
		attrSK: &types.AttributeValueMemberS{Value: sk},
	}
}

func str(s string) types.AttributeValue   { return &types.AttributeValueMemberS{Value: s} }
func num(n int) types.AttributeValue      { return &types.AttributeValueMemberN{Value: fmt.Sprint(n)} }
func boolean(b bool) types.AttributeValue { return &types.AttributeValueMemberBOOL{Value: b} }
