// Package jsondoc decodes JSON documents (request bodies, the fixture) strictly,
// on github.com/go-json-experiment/json, the encoding/json/v2 implementation:
// object member names must equal the target struct's json names exactly (case
// included), unknown and repeated names are errors, a value of the wrong JSON
// type is an error, and so is data after the top-level value. Every failure is
// an *Error that says where in the document it is (`teams[0].role`,
// `workspaces[0].members[2]`) and, for malformed JSON, the line and column, so
// that each caller renders the message its readers need.
//
// A member whose type implements NullableTarget (workspace.Nullable) takes
// null as well as a value, and learns which it was given.
package jsondoc

import (
	"bytes"
	jsonv1 "encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Kind says what rule a document broke.
type Kind int

// The kinds of Error.
const (
	// Syntax: the document is not well-formed JSON (invalid UTF-8 included);
	// Line and Column say where.
	Syntax Kind = iota + 1
	// Trailing: a well-formed value is followed by more data; Line and Column
	// say where that data starts.
	Trailing
	// UnknownField: an object member names no field of the target struct;
	// Field is the name and Place the object holding it.
	UnknownField
	// RepeatedField: a name appears twice in one object, whatever the target;
	// Field is the name and Place the object holding it.
	RepeatedField
	// WrongType: a value is not of the JSON type its target takes (null
	// included, under RejectNull); Want names that type ("an integer", ...).
	WrongType
	// Rejected: a value of the right JSON type that its target refused, such
	// as a malformed time for a time.Time; Err says why.
	Rejected
)

// Error is a strict-decoding failure. Error() renders it as "place: problem",
// or as the problem alone when it concerns the whole document (Place is "").
// Place and Field are the document's own text: a caller that shows them to
// someone who must not see some of it (a key-shaped name) redacts them.
type Error struct {
	Kind Kind
	// Place is where the problem is: "" for the top-level value, else a path
	// of member names and array indexes such as "teams[0].role". For
	// UnknownField and RepeatedField it is the object holding the name.
	Place string
	// Field is the offending member name (UnknownField and RepeatedField).
	Field string
	// Want names the JSON type expected (WrongType), e.g. "an integer".
	Want string
	// Line and Column are the 1-based position of a Syntax or Trailing error.
	Line, Column int
	// Err is the decoder's error: a *jsontext.SyntacticError or a
	// *json.SemanticError.
	Err error
}

// Error returns "place: problem", or the problem alone when Place is "".
func (e *Error) Error() string {
	if e.Place == "" {
		return e.Problem()
	}
	return e.Place + ": " + e.Problem()
}

// Problem says what is wrong at Place: `unknown field "x"`, `field "x"
// appears more than once`, "must be an integer", or for Syntax and Trailing
// "malformed JSON at line 2, column 9: invalid character ...".
func (e *Error) Problem() string {
	switch e.Kind {
	case Syntax, Trailing:
		detail := e.Err.Error()
		var syn *jsontext.SyntacticError
		if errors.As(e.Err, &syn) && syn.Err != nil {
			detail = syn.Err.Error()
		}
		return fmt.Sprintf("malformed JSON at line %d, column %d: %s", e.Line, e.Column, detail)
	case UnknownField:
		return fmt.Sprintf("unknown field %q", e.Field)
	case RepeatedField:
		return fmt.Sprintf("field %q appears more than once", e.Field)
	case WrongType:
		return "must be " + e.Want
	default:
		var sem *json.SemanticError
		if errors.As(e.Err, &sem) && sem.Err != nil {
			return sem.Err.Error()
		}
		return e.Err.Error()
	}
}

// Unwrap returns the decoder's error.
func (e *Error) Unwrap() error { return e.Err }

// Path returns the place of the offending name itself for UnknownField and
// RepeatedField errors (Place joined with Field, e.g. "teams[0].x") and Place
// for the others; "" means the whole document.
func (e *Error) Path() string {
	if e.Kind == UnknownField || e.Kind == RepeatedField {
		return join(e.Place, e.Field)
	}
	return e.Place
}

// join returns the place of member name inside the value at place: "teams[0]"
// and "role" give "teams[0].role", and "" and "role" give "role".
func join(place, name string) string {
	if place == "" {
		return name
	}
	return place + "." + name
}

// Option changes a rule of Unmarshal.
type Option func(*options)

type options struct{ rejectNull bool }

// RejectNull makes JSON null a WrongType error for every target except a
// NullableTarget (not a pointer to one), an interface (which holds any JSON
// value, null among them) and raw JSON (jsontext.Value,
// encoding/json.RawMessage). Request bodies use it (docs/bounds.md: null only
// where a field is documented as nullable). Without it, null sets its target
// to the zero value, as encoding/json/v2 does.
func RejectNull() Option { return func(o *options) { o.rejectNull = true } }

// Unmarshal decodes the JSON document data into the value v points to, the
// way encoding/json/v2 does, but strictly (see the package doc). Syntax comes
// first: a malformed document is a Syntax or Trailing error (or RepeatedField)
// before any of its members is looked at. On failure Unmarshal returns an
// *Error, and v may be partly filled; when v is not a non-nil pointer it
// returns another error, a bug of the caller's.
func Unmarshal(data []byte, v any, opts ...Option) error {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if rv := reflect.ValueOf(v); rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("jsondoc: Unmarshal needs a non-nil pointer, not %T", v)
	}
	// Unmarshalling into a raw value checks syntax, UTF-8, repeated names and
	// trailing data over the whole document.
	if err := json.Unmarshal(data, new(jsontext.Value)); err != nil {
		return classify(data, err)
	}
	funcs := json.UnmarshalFromFunc(decodeNullable)
	if o.rejectNull {
		funcs = json.JoinUnmarshalers(funcs, json.UnmarshalFromFunc(refuseNull))
	}
	if err := json.Unmarshal(data, v, json.RejectUnknownMembers(true), json.WithUnmarshalers(funcs)); err != nil {
		return classify(data, err)
	}
	return nil
}

// NullableTarget is the type of a member that takes null as well as a value
// (workspace.Nullable, whose package imports no JSON decoder). The decoder
// calls DecodeNull for null, and otherwise decodes the value, by the same
// strict rules as the rest of the document, into what DecodeValue returns.
type NullableTarget interface {
	DecodeNull()
	DecodeValue() any
}

// decodeNullable is an unmarshal function for every type (v points to the
// value): it decodes a NullableTarget and hands anything else on to the next
// unmarshaler by returning errors.ErrUnsupported.
func decodeNullable(dec *jsontext.Decoder, v any) error {
	n, ok := v.(NullableTarget)
	if !ok {
		return errors.ErrUnsupported
	}
	if dec.PeekKind() == 'n' {
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		n.DecodeNull()
		return nil
	}
	target := n.DecodeValue()
	if t := reflect.TypeOf(target).Elem(); !takes(t, dec.PeekKind()) {
		return &typeError{want: describe(t) + " or null"}
	}
	return json.UnmarshalDecode(dec, target)
}

var (
	rawValueType   = reflect.TypeFor[jsontext.Value]()
	rawMessageType = reflect.TypeFor[jsonv1.RawMessage]()
)

// typeError is the refusal of a value by one of the unmarshal functions
// above; want names what the target takes.
type typeError struct{ want string }

func (e *typeError) Error() string { return "must be " + e.want }

// refuseNull is an unmarshal function for every type (v points to the value):
// it refuses a null unless the target accepts one, and otherwise hands the
// value on to the next unmarshaler by returning errors.ErrUnsupported.
func refuseNull(dec *jsontext.Decoder, v any) error {
	if dec.PeekKind() != 'n' {
		return errors.ErrUnsupported
	}
	t := reflect.TypeOf(v).Elem()
	if t.Kind() == reflect.Interface || t == rawValueType || t == rawMessageType {
		return errors.ErrUnsupported
	}
	return &typeError{want: describe(t)}
}

// classify turns a decoder error into an *Error.
func classify(data []byte, err error) error {
	var syn *jsontext.SyntacticError
	if errors.As(err, &syn) {
		if errors.Is(err, jsontext.ErrDuplicateName) {
			place, field := locate(data, syn.JSONPointer)
			return &Error{Kind: RepeatedField, Place: place, Field: field, Err: err}
		}
		kind := Syntax
		if _, first := jsontext.NewDecoder(bytes.NewReader(data)).ReadValue(); first == nil {
			kind = Trailing
		}
		line, col := position(data, syn.ByteOffset)
		return &Error{Kind: kind, Line: line, Column: col, Err: err}
	}
	var sem *json.SemanticError
	if !errors.As(err, &sem) {
		return err
	}
	if errors.Is(sem.Err, json.ErrUnknownName) {
		place, field := locate(data, sem.JSONPointer)
		return &Error{Kind: UnknownField, Place: place, Field: field, Err: err}
	}
	place := locateValue(data, sem.JSONPointer)
	var typeErr *typeError
	if errors.As(sem.Err, &typeErr) {
		return &Error{Kind: WrongType, Place: place, Want: typeErr.want, Err: err}
	}
	if sem.GoType != nil && (sem.Err == nil || isNumber(sem.GoType) || !takes(sem.GoType, sem.JSONKind)) {
		// A JSON type the Go type cannot take, or a number it cannot hold
		// (a fraction or an overflow for an integer).
		return &Error{Kind: WrongType, Place: place, Want: describe(sem.GoType), Err: err}
	}
	return &Error{Kind: Rejected, Place: place, Err: err}
}

// locate returns the place of the object holding the member ptr points to,
// and the member's name.
func locate(data []byte, ptr jsontext.Pointer) (place, name string) {
	return locateValue(data, ptr.Parent()), ptr.LastToken()
}

// locateValue renders ptr, a JSON Pointer into data, as a place such as
// "teams[0].role". A pointer does not say whether a token such as "0" is an
// array index or a member name, so the document itself is walked to tell.
func locateValue(data []byte, ptr jsontext.Pointer) string {
	var b strings.Builder
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	walking := true
	for tok := range ptr.Tokens() {
		kind := jsontext.Kind(0)
		if walking {
			kind = dec.PeekKind()
			walking = enter(dec, kind, tok)
		}
		if kind == '[' {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}

// enter moves dec, positioned before an array or object, to just before the
// element or member tok names; it reports whether it got there.
func enter(dec *jsontext.Decoder, kind jsontext.Kind, tok string) bool {
	if kind != '[' && kind != '{' {
		return false
	}
	if _, err := dec.ReadToken(); err != nil {
		return false
	}
	if kind == '[' {
		n, err := strconv.Atoi(tok)
		if err != nil {
			return false
		}
		for range n {
			if dec.SkipValue() != nil {
				return false
			}
		}
		return true
	}
	for dec.PeekKind() == '"' {
		name, err := dec.ReadToken()
		if err != nil {
			return false
		}
		if name.String() == tok {
			return true
		}
		if dec.SkipValue() != nil {
			return false
		}
	}
	return false
}

// position turns a byte offset into a 1-based line and column.
func position(data []byte, offset int64) (line, col int) {
	offset = min(max(offset, 0), int64(len(data)))
	before := data[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(offset) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

var textUnmarshalerType = reflect.TypeFor[interface{ UnmarshalText([]byte) error }]()

// isNumber reports whether t (pointers aside) is a Go number type.
func isNumber(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

// takes reports whether a JSON value of kind k is of the type t takes, so
// that a refusal is about the value itself rather than its type.
func takes(t reflect.Type, k jsontext.Kind) bool {
	switch describe(t) {
	case "a string", "a base64 string":
		return k == '"'
	case "an integer", "a number":
		return k == '0'
	case "a boolean":
		return k == 't' || k == 'f'
	case "an array":
		return k == '['
	case "an object":
		return k == '{'
	}
	return true
}

// describe names the JSON type a Go type takes, the way a reader of the
// document thinks of it.
func describe(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(textUnmarshalerType) {
		return "a string"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "a base64 string"
		}
		return "an array"
	case reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "a " + t.String()
}
