// Package httpapi is the HTTP plumbing every endpoint group shares: strict JSON
// decoding, encoding, the one error path, batch results, the caller the key
// authorizer established, and the adapter from API Gateway events.
package httpapi

import (
	"bytes"
	"errors"
	"io"
	"net/http"

	"github.com/agentplatform/workspaceapi/shared/strictjson"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// MaxBodyBytes is the largest request body accepted (256 KiB); larger is 413.
const MaxBodyBytes = 256 << 10

// Decode reads r's body as one JSON object into dst, a pointer to a struct.
// Field names must match dst's json tags exactly (case included); unknown or
// repeated fields, wrong types, malformed JSON, trailing data and a body that is
// not an object are KindInvalid errors naming the problem (see strictjson); a
// body over MaxBodyBytes is a KindTooLarge error.
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

// DecodeBytes is Decode on a body already read. It returns a KindInvalid error
// naming the problem when body is not one JSON object that fits dst, and an
// unclassified error when dst is not a non-nil pointer.
func DecodeBytes(body []byte, dst any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return workspace.Invalid("the request body must be a JSON object")
	}
	err := strictjson.Unmarshal(body, dst)
	var e *strictjson.Error
	if !errors.As(err, &e) {
		return err // nil, or dst is not a pointer: a bug, not the caller's
	}
	switch {
	case e.Kind == strictjson.Syntax:
		return workspace.Invalid("the request body is not valid JSON")
	case e.Kind == strictjson.Trailing:
		return workspace.Invalid("the request body must hold a single JSON value")
	case e.Kind == strictjson.UnknownField:
		return workspace.Invalid("unknown field %q", e.Path())
	case e.Kind == strictjson.RepeatedField:
		return workspace.Invalid("field %q appears more than once", e.Path())
	case e.Kind == strictjson.WrongType && e.Place == "":
		return workspace.Invalid("the request body must be a JSON object")
	case e.Kind == strictjson.WrongType:
		return workspace.Invalid("%s must be %s", e.Place, e.Want)
	default:
		return workspace.Invalid("%s", e.Error())
	}
}
