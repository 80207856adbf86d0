package tableops

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// MarshalItems writes raw table items in DynamoDB's JSON form, the form
// `aws dynamodb scan` prints ({"PK": {"S": "..."}, ...}), one item a line,
// so a dump of a table reads and diffs line by line.
func MarshalItems(items []map[string]types.AttributeValue) ([]byte, error) {
	var out []byte
	for _, item := range items {
		doc := make(map[string]any, len(item))
		for name, v := range item {
			j, err := attrJSON(v)
			if err != nil {
				return nil, fmt.Errorf("attribute %s: %w", name, err)
			}
			doc[name] = j
		}
		line, err := json.Marshal(doc) // map keys are sorted: a stable line
		if err != nil {
			return nil, err
		}
		out = append(append(out, line...), '\n')
	}
	return out, nil
}

// UnmarshalItems reads what MarshalItems writes (or any sequence of items in
// DynamoDB's JSON form).
func UnmarshalItems(data []byte) ([]map[string]types.AttributeValue, error) {
	var items []map[string]types.AttributeValue
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	for dec.More() {
		var doc map[string]map[string]json.RawMessage
		if err := dec.Decode(&doc); err != nil {
			return nil, fmt.Errorf("item %d: %w", len(items)+1, err)
		}
		item := make(map[string]types.AttributeValue, len(doc))
		for name, raw := range doc {
			v, err := attrFromJSON(raw)
			if err != nil {
				return nil, fmt.Errorf("item %d, attribute %s: %w", len(items)+1, name, err)
			}
			item[name] = v
		}
		items = append(items, item)
	}
	return items, nil
}

func attrJSON(v types.AttributeValue) (map[string]any, error) {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return map[string]any{"S": v.Value}, nil
	case *types.AttributeValueMemberN:
		return map[string]any{"N": v.Value}, nil
	case *types.AttributeValueMemberBOOL:
		return map[string]any{"BOOL": v.Value}, nil
	case *types.AttributeValueMemberNULL:
		return map[string]any{"NULL": true}, nil
	case *types.AttributeValueMemberB:
		return map[string]any{"B": base64.StdEncoding.EncodeToString(v.Value)}, nil
	case *types.AttributeValueMemberSS:
		return map[string]any{"SS": slices.Sorted(slices.Values(v.Value))}, nil
	case *types.AttributeValueMemberNS:
		return map[string]any{"NS": slices.Sorted(slices.Values(v.Value))}, nil
	case *types.AttributeValueMemberL:
		list := make([]any, len(v.Value))
		for i, e := range v.Value {
			j, err := attrJSON(e)
			if err != nil {
				return nil, err
			}
			list[i] = j
		}
		return map[string]any{"L": list}, nil
	case *types.AttributeValueMemberM:
		m := make(map[string]any, len(v.Value))
		for k, e := range v.Value {
			j, err := attrJSON(e)
			if err != nil {
				return nil, err
			}
			m[k] = j
		}
		return map[string]any{"M": m}, nil
	}
	return nil, fmt.Errorf("unsupported attribute type %T", v)
}

func attrFromJSON(raw map[string]json.RawMessage) (types.AttributeValue, error) {
	if len(raw) != 1 {
		return nil, fmt.Errorf("want one type, got %d", len(raw))
	}
	for typ, body := range raw {
		switch typ {
		case "S", "N", "B":
			var s string
			if err := json.Unmarshal(body, &s); err != nil {
				return nil, err
			}
			switch typ {
			case "S":
				return &types.AttributeValueMemberS{Value: s}, nil
			case "N":
				return &types.AttributeValueMemberN{Value: s}, nil
			}
			b, err := base64.StdEncoding.DecodeString(s)
			return &types.AttributeValueMemberB{Value: b}, err
		case "BOOL":
			var b bool
			err := json.Unmarshal(body, &b)
			return &types.AttributeValueMemberBOOL{Value: b}, err
		case "NULL":
			return &types.AttributeValueMemberNULL{Value: true}, nil
		case "SS", "NS":
			var ss []string
			if err := json.Unmarshal(body, &ss); err != nil {
				return nil, err
			}
			if typ == "SS" {
				return &types.AttributeValueMemberSS{Value: ss}, nil
			}
			return &types.AttributeValueMemberNS{Value: ss}, nil
		case "L":
			var list []map[string]json.RawMessage
			if err := json.Unmarshal(body, &list); err != nil {
				return nil, err
			}
			out := make([]types.AttributeValue, len(list))
			for i, e := range list {
				v, err := attrFromJSON(e)
				if err != nil {
					return nil, err
				}
				out[i] = v
			}
			return &types.AttributeValueMemberL{Value: out}, nil
		case "M":
			var m map[string]map[string]json.RawMessage
			if err := json.Unmarshal(body, &m); err != nil {
				return nil, err
			}
			out := make(map[string]types.AttributeValue, len(m))
			for k, e := range m {
				v, err := attrFromJSON(e)
				if err != nil {
					return nil, err
				}
				out[k] = v
			}
			return &types.AttributeValueMemberM{Value: out}, nil
		}
		return nil, fmt.Errorf("unknown type %q", typ)
	}
	panic("unreachable")
}
