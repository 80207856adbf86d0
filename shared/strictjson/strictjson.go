// Package strictjson decodes JSON into Go values like encoding/json, but
// strictly: object keys must match the target struct's json tags exactly (case
// included), unknown and repeated keys are errors, a value of the wrong JSON
// type is an error, and so is data after the top-level value. Every failure is
// an *Error that says where in the document it is (`teams[0].role`,
// `workspaces[0].members[2]`) and, for malformed JSON, the line and column, so
// that each caller can render the message its readers need.
package strictjson

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// Kind says what rule a document broke.
type Kind int

// The kinds of Error.
const (
	// Syntax: the document is not well-formed JSON; Line and Column say where.
	Syntax Kind = iota + 1
	// Trailing: a well-formed value is followed by more data; Line and Column
	// say where that data starts.
	Trailing
	// UnknownField: an object key names no field of the target struct; Field
	// is the key and Place the object holding it.
	UnknownField
	// RepeatedField: a key appears twice in one object; Field is the key and
	// Place the object holding it.
	RepeatedField
	// WrongType: a value is not of the JSON type its target takes; Want names
	// that type ("an integer", "a string", "an object", ...).
	WrongType
	// Rejected: a json.Unmarshaler or encoding.TextUnmarshaler refused its
	// value; Err is its error.
	Rejected
)

// Error is a strict-decoding failure. Error() renders it as "place: problem",
// or as the problem alone when it concerns the whole document (Place is "").
type Error struct {
	Kind Kind
	// Place is where the problem is: "" for the top-level value, else a path
	// of object keys and array indexes such as "teams[0].role".
	Place string
	// Problem says what is wrong there, without the place: `unknown field "x"`,
	// `field "x" appears more than once`, "must be an integer", or for Syntax
	// and Trailing "malformed JSON at line 2, column 9: invalid character ...".
	Problem string
	// Field is the offending object key (UnknownField and RepeatedField).
	Field string
	// Want names the JSON type expected (WrongType), e.g. "an integer".
	Want string
	// Line and Column are the 1-based position of a Syntax or Trailing error.
	Line, Column int
	// Err is the underlying error: the *json.SyntaxError of a Syntax or
	// Trailing error, or an unmarshaler's error (Rejected); nil otherwise.
	Err error
}

// Error returns "place: problem", or the problem alone when Place is "".
func (e *Error) Error() string {
	if e.Place == "" {
		return e.Problem
	}
	return e.Place + ": " + e.Problem
}

// Unwrap returns the underlying error (see Err), or nil when there is none.
func (e *Error) Unwrap() error { return e.Err }

// Path returns the place of the offending key itself for UnknownField and
// RepeatedField errors (Place joined with Field, e.g. "teams[0].x") and Place
// for the others. It cannot fail; "" means the whole document.
func (e *Error) Path() string {
	if e.Kind == UnknownField || e.Kind == RepeatedField {
		return key(e.Place, e.Field)
	}
	return e.Place
}

// key returns the place of the object key name inside the value at place:
// "teams[0]" and "role" give "teams[0].role", and "" and "role" give "role".
func key(place, name string) string {
	if place == "" {
		return name
	}
	return place + "." + name
}

// Unmarshal decodes the JSON document data into the value v points to, the way
// json.Unmarshal does, but strictly:
//
//   - an object decoded into a struct may hold only keys that equal the json
//     names of its fields (the tag's name, else the Go field name; embedded
//     structs' fields count as the struct's own), compared exactly;
//   - no object, whatever its target, may hold a key twice;
//   - a value of the wrong JSON type, including null for a struct, is an error
//     (null for a pointer, slice, map or interface sets it to nil, and for
//     anything else leaves it as it is, as encoding/json does);
//   - maps with string keys and interface{} targets accept any keys, and their
//     values are decoded by the same rules; other maps are left to
//     encoding/json;
//   - a type implementing json.Unmarshaler (json.RawMessage among them) is
//     handed its value's raw bytes, unchecked;
//   - data after the top-level value is an error.
//
// The ",string" tag option is not supported. On failure Unmarshal returns an
// *Error, and v may be partly filled; when v is not a non-nil pointer it
// returns a *json.InvalidUnmarshalError instead.
func Unmarshal(data []byte, v any) error {
	if !json.Valid(data) {
		return syntaxError(data)
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return &json.InvalidUnmarshalError{Type: reflect.TypeOf(v)}
	}
	return decode("", data, rv.Elem())
}

// syntaxError describes why data, which json.Valid refuses, is not one JSON
// value: a malformed value (Syntax), or a good one followed by more (Trailing).
func syntaxError(data []byte) error {
	var x any
	err := json.Unmarshal(data, &x)
	var syn *json.SyntaxError
	if !errors.As(err, &syn) {
		return &Error{Kind: Syntax, Problem: fmt.Sprintf("malformed JSON: %v", err), Err: err}
	}
	kind := Syntax
	var first json.RawMessage
	if json.NewDecoder(bytes.NewReader(data)).Decode(&first) == nil {
		kind = Trailing
	}
	line, col := position(data, syn.Offset)
	return &Error{
		Kind: kind, Line: line, Column: col, Err: err,
		Problem: fmt.Sprintf("malformed JSON at line %d, column %d: %s", line, col, syn.Error()),
	}
}

// position turns a byte offset into a 1-based line and column.
func position(data []byte, offset int64) (line, col int) {
	offset = min(max(offset, 0), int64(len(data)))
	before := data[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(offset) - (bytes.LastIndexByte(before, '\n') + 1)
	return line, max(col, 1)
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	numberType          = reflect.TypeFor[json.Number]()
	anyMapType          = reflect.TypeFor[map[string]any]()
	anySliceType        = reflect.TypeFor[[]any]()
)

// decode decodes raw, one well-formed JSON value, into v, which is settable;
// place is where raw stands in the document.
func decode(place string, raw []byte, v reflect.Value) error {
	raw = bytes.TrimSpace(raw)
	null := string(raw) == "null"
	t := v.Type()
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		if err := json.Unmarshal(raw, v.Addr().Interface()); err != nil {
			return &Error{Kind: Rejected, Place: place, Problem: err.Error(), Err: err}
		}
		return nil
	}
	if t.Kind() == reflect.Pointer {
		if null {
			v.SetZero()
			return nil
		}
		if v.IsNil() {
			v.Set(reflect.New(t.Elem()))
		}
		return decode(place, raw, v.Elem())
	}
	if reflect.PointerTo(t).Implements(textUnmarshalerType) {
		return decodeScalar(place, raw, v)
	}
	switch t.Kind() {
	case reflect.Struct:
		if raw[0] != '{' {
			return wrongType(place, t)
		}
		return decodeObject(place, raw, v)
	case reflect.Map:
		if t.Key().Kind() != reflect.String || reflect.PointerTo(t.Key()).Implements(textUnmarshalerType) {
			return decodeScalar(place, raw, v) // keys encoding/json converts
		}
		if null {
			v.SetZero()
			return nil
		}
		if raw[0] != '{' {
			return wrongType(place, t)
		}
		return decodeObject(place, raw, v)
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && t.Kind() == reflect.Slice {
			return decodeScalar(place, raw, v) // []byte: base64, as encoding/json does
		}
		return decodeArray(place, raw, v)
	case reflect.Interface:
		if t.NumMethod() != 0 || (raw[0] != '{' && raw[0] != '[') {
			return decodeScalar(place, raw, v)
		}
		generic := anyMapType
		if raw[0] == '[' {
			generic = anySliceType
		}
		x := reflect.New(generic).Elem()
		if err := decode(place, raw, x); err != nil {
			return err
		}
		v.Set(x)
		return nil
	default:
		return decodeScalar(place, raw, v)
	}
}

// decodeScalar leaves raw to encoding/json, which is strict enough for values
// without keys, and names the expected type when the value does not fit.
func decodeScalar(place string, raw []byte, v reflect.Value) error {
	err := json.Unmarshal(raw, v.Addr().Interface())
	if err == nil {
		return nil
	}
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && v.Kind() != reflect.Interface {
		return wrongType(place, v.Type())
	}
	return &Error{Kind: Rejected, Place: place, Problem: err.Error(), Err: err}
}

// decodeArray decodes a JSON array (or null) into the slice or array v.
func decodeArray(place string, raw []byte, v reflect.Value) error {
	if string(raw) == "null" {
		if v.Kind() == reflect.Slice {
			v.SetZero()
		}
		return nil
	}
	if raw[0] != '[' {
		return wrongType(place, v.Type())
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return &Error{Kind: Syntax, Place: place, Problem: err.Error(), Err: err}
	}
	if v.Kind() == reflect.Array {
		if len(elems) > v.Len() {
			want := fmt.Sprintf("an array of at most %d elements", v.Len())
			return &Error{Kind: WrongType, Place: place, Want: want, Problem: "must be " + want}
		}
		v.SetZero()
	} else {
		v.Set(reflect.MakeSlice(v.Type(), len(elems), len(elems)))
	}
	for i, e := range elems {
		if err := decode(fmt.Sprintf("%s[%d]", place, i), e, v.Index(i)); err != nil {
			return err
		}
	}
	return nil
}

// decodeObject decodes a JSON object into v, a struct (field by field) or a
// map with string keys (entry by entry).
func decodeObject(place string, raw []byte, v reflect.Value) error {
	var fields map[string][]int
	if v.Kind() == reflect.Struct {
		fields = structFields(v.Type())
	} else if v.IsNil() {
		v.Set(reflect.MakeMap(v.Type()))
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil { // the opening brace
		return &Error{Kind: Syntax, Place: place, Problem: err.Error(), Err: err}
	}
	seen := make(map[string]bool)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return &Error{Kind: Syntax, Place: place, Problem: err.Error(), Err: err}
		}
		name, _ := tok.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return &Error{Kind: Syntax, Place: place, Problem: err.Error(), Err: err}
		}
		index, known := fields[name]
		if !known && fields != nil {
			return &Error{Kind: UnknownField, Place: place, Field: name, Problem: fmt.Sprintf("unknown field %q", name)}
		}
		if seen[name] {
			return &Error{Kind: RepeatedField, Place: place, Field: name, Problem: fmt.Sprintf("field %q appears more than once", name)}
		}
		seen[name] = true
		if fields != nil {
			if err := decode(key(place, name), val, fieldByIndex(v, index)); err != nil {
				return err
			}
			continue
		}
		elem := reflect.New(v.Type().Elem()).Elem()
		if err := decode(key(place, name), val, elem); err != nil {
			return err
		}
		v.SetMapIndex(reflect.ValueOf(name).Convert(v.Type().Key()), elem)
	}
	return nil
}

// fieldByIndex is v.FieldByIndex, allocating embedded struct pointers on the way.
func fieldByIndex(v reflect.Value, index []int) reflect.Value {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v
}

var fieldCache sync.Map // reflect.Type -> map[string][]int

// structFields maps the JSON names of t's fields to their indexes, as
// encoding/json names them: the json tag's name, else the field's name; fields
// tagged "-" and unexported fields have none, and the fields of an embedded
// struct without a tag name count as t's own unless t has one of that name.
func structFields(t reflect.Type) map[string][]int {
	if f, ok := fieldCache.Load(t); ok {
		return f.(map[string][]int)
	}
	out := make(map[string][]int)
	var embedded []int
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				// encoding/json cannot allocate an unexported embedded pointer.
				if f.IsExported() || f.Type.Kind() == reflect.Struct {
					embedded = append(embedded, i)
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = []int{i}
	}
	for _, i := range embedded {
		ft := t.Field(i).Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		for n, idx := range structFields(ft) {
			if _, ok := out[n]; !ok {
				out[n] = append([]int{i}, idx...)
			}
		}
	}
	fieldCache.Store(t, out)
	return out
}

// wrongType is the WrongType error for a value at place that t cannot take.
func wrongType(place string, t reflect.Type) error {
	want := describe(t)
	return &Error{Kind: WrongType, Place: place, Want: want, Problem: "must be " + want}
}

// describe names the JSON type a Go type takes, the way a reader of the
// document thinks of it.
func describe(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == numberType:
		return "a number"
	case reflect.PointerTo(t).Implements(textUnmarshalerType):
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
