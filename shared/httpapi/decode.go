// Package httpapi is the HTTP plumbing every endpoint group shares: strict JSON
// decoding, encoding, the one error path, batch results, the caller the key
// authorizer established, and the adapter from API Gateway events.
package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// MaxBodyBytes is the largest request body accepted (256 KiB); larger is 413.
const MaxBodyBytes = 256 << 10

// Decode reads r's body as one JSON object into dst, a pointer to a struct.
// Field names must match dst's json tags exactly (case included); unknown
// fields, wrong types, malformed JSON, trailing data and a body that is not an
// object are KindInvalid errors naming the problem; a body over MaxBodyBytes
// is a KindTooLarge error.
func Decode(r *http.Request, dst any) error {
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	if err != nil {
		return workspace.Invalid("the request body could not be read")
	}
	if len(body) > MaxBodyBytes {
		return workspace.TooLarge("the request body exceeds %d KiB", MaxBodyBytes>>10)
	}
	return DecodeBytes(body, dst)
}

// DecodeBytes is Decode on a body already read.
func DecodeBytes(body []byte, dst any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return workspace.Invalid("the request body must be a JSON object")
	}
	var raw any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return workspace.Invalid("the request body is not valid JSON")
	}
	if _, err := dec.Token(); err != io.EOF {
		return workspace.Invalid("the request body must hold a single JSON value")
	}
	if _, ok := raw.(map[string]any); !ok {
		return workspace.Invalid("the request body must be a JSON object")
	}
	if err := checkFields(raw, reflect.TypeOf(dst).Elem(), ""); err != nil {
		return err
	}
	if err := json.Unmarshal(body, dst); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return workspace.Invalid("%s must be %s", fieldName(typeErr.Field), describeType(typeErr.Type))
		}
		return workspace.Invalid("the request body is not valid JSON")
	}
	return nil
}

// checkFields walks a decoded JSON value beside the Go type it will fill and
// rejects object keys the type does not name exactly: encoding/json alone
// would accept "Email" for "email" and ignore unknown keys.
func checkFields(v any, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch val := v.(type) {
	case map[string]any:
		if t.Kind() != reflect.Struct {
			return nil // maps and any accept every key; type errors come later
		}
		fields := jsonFields(t)
		for k, child := range val {
			ft, ok := fields[k]
			if !ok {
				return workspace.Invalid("unknown field %q", joinPath(path, k))
			}
			if err := checkFields(child, ft, joinPath(path, k)); err != nil {
				return err
			}
		}
	case []any:
		if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
			return nil
		}
		for i, child := range val {
			if err := checkFields(child, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// jsonFields maps the JSON names of a struct's fields (embedded ones
// included) to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	fields := make(map[string]reflect.Type, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range jsonFields(ft) {
					fields[k] = v
				}
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		fields[name] = f.Type
	}
	return fields
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func fieldName(f string) string {
	if f == "" {
		return "the request body"
	}
	return f
}

// describeType names a Go type the way an API user thinks of JSON.
func describeType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	default:
		return "an object"
	}
}
