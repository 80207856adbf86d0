// Package httpapi is the HTTP plumbing every endpoint group shares: strict JSON
// decoding, encoding, the one error path, batch results, the caller the key
// authorizer established, and the adapter from API Gateway events.
package httpapi

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/agentplatform/workspaceapi/shared/jsondoc"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// MaxBodyBytes is the largest request body accepted (256 KiB); larger is 413.
const MaxBodyBytes = 256 << 10

// Decode reads r's body as one JSON object into dst, a pointer to a struct.
// A Content-Type other than application/json (parameters allowed, a charset
// only if UTF-8) is a KindUnsupportedMedia error, found before the body is
// read; a body without one is read as JSON (docs/bounds.md). A body over
// MaxBodyBytes is a KindTooLarge error. The rest is DecodeBytes.
func Decode(r *http.Request, dst any) error {
	for _, ct := range r.Header.Values("Content-Type") { // every one, if repeated
		if err := checkContentType(ct); err != nil {
			return err
		}
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	if err != nil {
		return workspace.Invalid("the request body could not be read")
	}
	if len(body) > MaxBodyBytes {
		return workspace.TooLarge("the request body exceeds %d KiB", MaxBodyBytes>>10)
	}
	return DecodeBytes(body, dst)
}

// DecodeNone holds a request whose operation takes no body (a DELETE of one
// resource) to the rules of every body (docs/bounds.md): none at all is
// fine; one that is sent is checked like any other (415 for another media
// type, 413 past MaxBodyBytes, 400 unless it is a JSON object) and must
// have no fields, since the operation reads none.
func DecodeNone(r *http.Request) error {
	if r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	for _, ct := range r.Header.Values("Content-Type") {
		if err := checkContentType(ct); err != nil {
			return err
		}
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	if err != nil {
		return workspace.Invalid("the request body could not be read")
	}
	if len(body) > MaxBodyBytes {
		return workspace.TooLarge("the request body exceeds %d KiB", MaxBodyBytes>>10)
	}
	if len(body) == 0 {
		return nil
	}
	return DecodeBytes(body, &struct{}{})
}

// checkContentType accepts an empty Content-Type and application/json, the
// media type compared case-insensitively. JSON is UTF-8 (RFC 8259), so a
// charset parameter other than utf-8 is refused too. The message never
// repeats the header, which is the client's text.
func checkContentType(header string) error {
	if strings.TrimSpace(header) == "" {
		return nil
	}
	media, params, err := mime.ParseMediaType(header)
	if err == nil && media == "application/json" {
		if cs, ok := params["charset"]; !ok || strings.EqualFold(cs, "utf-8") {
			return nil
		}
	}
	return workspace.UnsupportedMedia("the request body must be JSON, sent with Content-Type: application/json")
}

// DecodeBytes is Decode on a body already read: jsondoc.Unmarshal with
// jsondoc.RejectNull. Field names must match dst's json tags exactly (case
// included); unknown or repeated fields, wrong types, null for a field not
// declared jsondoc.Nullable, malformed JSON, trailing data and a body that is
// not an object are KindInvalid errors naming the problem and where it is. A
// key-shaped name never appears in the message. It returns an unclassified
// error when dst is not a non-nil pointer.
func DecodeBytes(body []byte, dst any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return workspace.Invalid("the request body must be a JSON object")
	}
	err := jsondoc.Unmarshal(body, dst, jsondoc.RejectNull())
	var e *jsondoc.Error
	if !errors.As(err, &e) {
		return err // nil, or dst is not a pointer: a bug, not the caller's
	}
	switch {
	case e.Kind == jsondoc.Syntax:
		return workspace.Invalid("the request body is not valid JSON")
	case e.Kind == jsondoc.Trailing:
		return workspace.Invalid("the request body must hold a single JSON value")
	case e.Kind == jsondoc.UnknownField && workspace.ContainsKey(e.Field):
		return workspace.Invalid("unknown field (a key-shaped name, not shown)")
	case e.Kind == jsondoc.UnknownField:
		return workspace.Invalid("unknown field %q", workspace.RedactKeys(e.Path()))
	case e.Kind == jsondoc.RepeatedField && workspace.ContainsKey(e.Field):
		return workspace.Invalid("a field (a key-shaped name, not shown) appears more than once")
	case e.Kind == jsondoc.RepeatedField:
		return workspace.Invalid("field %q appears more than once", workspace.RedactKeys(e.Path()))
	case e.Place == "":
		return workspace.Invalid("the request body must be a JSON object")
	case e.Kind == jsondoc.WrongType:
		return workspace.Invalid("%s must be %s", workspace.RedactKeys(e.Place), e.Want)
	default: // Rejected: the decoder's reason may quote the value, so say only where
		return workspace.Invalid("%s has an invalid value", workspace.RedactKeys(e.Place))
	}
}
