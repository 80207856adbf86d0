package jsondoc

import (
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Nullable is a member a request may omit, set to null, or set to a value of
// type T, and tells the three apart: the credit limits, where null means
// "remove the limit" and omitted means "leave it unchanged" (decisions §11:
// null is accepted only where a field is documented as nullable). Declaring a
// field as Nullable is what makes null acceptable for it under RejectNull;
// the value itself is decoded by the same strict rules as any other.
//
// The zero Nullable is omitted.
type Nullable[T any] struct {
	present bool
	null    bool
	value   T
}

// Null returns a Nullable that was given as null.
func Null[T any]() Nullable[T] { return Nullable[T]{present: true, null: true} }

// Value returns a Nullable that was given as v.
func Value[T any](v T) Nullable[T] { return Nullable[T]{present: true, value: v} }

// Omitted reports whether the member was absent.
func (n Nullable[T]) Omitted() bool { return !n.present }

// IsNull reports whether the member was given as null.
func (n Nullable[T]) IsNull() bool { return n.null }

// Get returns the value and true when the member was given a value, and the
// zero T and false when it was omitted or null.
func (n Nullable[T]) Get() (T, bool) { return n.value, n.present && !n.null }

// acceptsNull marks Nullable as a target that takes null (see RejectNull).
func (*Nullable[T]) acceptsNull() {}

// UnmarshalJSONFrom decodes null, or a value of type T with the decoder's own
// options (so T is decoded as strictly as the rest of the document).
func (n *Nullable[T]) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	if dec.PeekKind() == 'n' {
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		*n = Null[T]()
		return nil
	}
	var v T
	if err := json.UnmarshalDecode(dec, &v); err != nil {
		return err
	}
	*n = Value(v)
	return nil
}
