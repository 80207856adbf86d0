package workspace

// Nullable is a request field that may be omitted, given as null, or given a
// value of type T, and tells the three apart: the credit limits, where null
// removes a limit and omitted leaves it unchanged. Null is accepted only where
// a field is documented as nullable (docs/bounds.md): declaring the field as a
// Nullable is what makes null acceptable to the request decoder (httpapi.Decode,
// through jsondoc), which decodes the value itself as strictly as any other.
//
// The zero Nullable is omitted. The type imports no JSON package, so that the
// domain (and everything linking it, the authorizer among them) stays free of
// the decoder.
type Nullable[T any] struct {
	present bool
	null    bool
	value   T
}

// Null returns a Nullable given as null.
func Null[T any]() Nullable[T] { return Nullable[T]{present: true, null: true} }

// Value returns a Nullable given the value v.
func Value[T any](v T) Nullable[T] { return Nullable[T]{present: true, value: v} }

// Omitted reports whether the field was absent.
func (n Nullable[T]) Omitted() bool { return !n.present }

// IsNull reports whether the field was given as null.
func (n Nullable[T]) IsNull() bool { return n.null }

// Get returns the value and true when the field was given a value, and the
// zero T and false when it was omitted or null.
func (n Nullable[T]) Get() (T, bool) { return n.value, n.present && !n.null }

// DecodeNull is for JSON decoders (jsondoc.NullableTarget): the field was null.
func (n *Nullable[T]) DecodeNull() { *n = Null[T]() }

// DecodeValue is for JSON decoders (jsondoc.NullableTarget): the field holds a
// value, to be decoded into the pointer it returns.
func (n *Nullable[T]) DecodeValue() any {
	*n = Nullable[T]{present: true}
	return &n.value
}

// NullIfNil returns a Nullable given *v, or given as null when v is nil: an
// optional value (a credit limit) as a field that sets it.
func NullIfNil[T any](v *T) Nullable[T] {
	if v == nil {
		return Null[T]()
	}
	return Value(*v)
}
