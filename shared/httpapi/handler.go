package httpapi

import "net/http"

// HandlerFunc is an endpoint's handler that returns its failure instead of
// writing it: ServeHTTP writes a returned error with Error, so every
// handler's errors take the one error path and no handler repeats it. A
// handler that has written its answer returns nil; it never writes a
// response and then returns an error.
type HandlerFunc func(w http.ResponseWriter, r *http.Request) error

// ServeHTTP runs f and writes the error it returns, if any, with Error.
func (f HandlerFunc) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := f(w, r); err != nil {
		Error(w, r, err)
	}
}
