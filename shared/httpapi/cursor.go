package httpapi

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base32"
	"encoding/binary"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Cursors (docs/api-rules.md, Query parameters): a cursor wraps a position
// in a listing (the id of a page's last entity) and an HMAC-SHA256 of that
// position and of what the cursor is bound to (CursorBinding: the caller's
// workspace, the list's path and its query but cursor and limit), keyed
// with the table's cursor key, a secret of 32 random bytes made once for
// the stack (dynamo.Store.CursorKey). Nobody without the key can make a
// cursor the service accepts: a cursor it did not issue for this list,
// query and workspace is a 400 before any read, whatever position it
// claims.

// maxCursorLength bounds a cursor before it is decoded: it wraps an id of at
// most workspace.MaxIDLength bytes and its MAC of 32, 461 characters.
const maxCursorLength = 2 * workspace.MaxIDLength

// ErrCursor is the 400 of a cursor that this API did not return for the
// listing it is sent with.
var ErrCursor = workspace.Invalid("cursor is not a cursor this API returned for this list: keep the filters of the page that returned it")

// CursorKeySource is where a function's Cursors get their key: the table
// (dynamo.Store.CursorKey), one round trip.
type CursorKeySource interface {
	CursorKey(ctx context.Context) ([]byte, error)
}

// Cursors hands out one function's cursor key: it reads it from its source
// once (LoadCursors, at the function's start) and keeps it for the
// process's life (a Lambda execution environment: one read per cold start).
// A failed read is not kept, so the next request tries again. Each
// function's wiring makes its own; there is no global.
type Cursors struct {
	src CursorKeySource
	mu  sync.Mutex
	key CursorKey
}

// NewCursors returns the Cursors of one function, reading the key from src
// when first needed. It does no I/O.
func NewCursors(src CursorKeySource) *Cursors { return &Cursors{src: src} }

// cursorKeyLoadTimeout bounds LoadCursors's read at a cold start. A healthy
// read takes milliseconds; when storage fails, a longer wait would only add
// to every new environment's start (the first list request reads the key
// then), so the bound is short.
const cursorKeyLoadTimeout = 500 * time.Millisecond

// LoadCursors returns the Cursors of one function with the key read now,
// at its cold start (one round trip, within cursorKeyLoadTimeout), so no
// request pays for it: each list function's wiring calls it, explicitly,
// once. When the read fails, it is logged and the first request that needs
// the key reads it again (Key), answering 503 if the table is still away.
func LoadCursors(src CursorKeySource) *Cursors {
	c := NewCursors(src)
	ctx, cancel := context.WithTimeout(context.Background(), cursorKeyLoadTimeout)
	defer cancel()
	if _, err := c.Key(ctx); err != nil {
		slog.Warn("could not read the cursor key at start; the first list request reads it", "error", err)
	}
	return c
}

// Key returns the cursor key, reading it the first time.
func (c *Cursors) Key(ctx context.Context) (CursorKey, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.key.secret == nil {
		secret, err := c.src.CursorKey(ctx)
		if err != nil {
			return CursorKey{}, err
		}
		c.key = CursorKey{secret: secret}
	}
	return c.key, nil
}

// QueryPage reads the limit and cursor of a paged list: limit (1 to
// MaxPageLimit; def when absent, where def 0 means the list is answered
// whole) and the id the cursor wraps ("" for the first page), refusing a
// cursor this API did not return for r's listing (CursorKey.Query). It
// answers the key too, for the page's next cursor (WritePage).
func (c *Cursors) QueryPage(r *http.Request, def int) (limit int, after string, key CursorKey, err error) {
	limit, set, err := QueryInt(r, "limit", 1, MaxPageLimit)
	if err != nil {
		return 0, "", CursorKey{}, err
	}
	if !set {
		limit = def
	}
	if key, err = c.Key(r.Context()); err != nil {
		return 0, "", CursorKey{}, err
	}
	after, err = key.Query(r)
	return limit, after, key, err
}

// CursorKey is a loaded cursor key; the zero CursorKey makes no cursor and
// accepts none.
type CursorKey struct{ secret []byte }

// NewCursorKey returns the key of secret (tests; functions use Cursors).
func NewCursorKey(secret []byte) CursorKey { return CursorKey{secret: secret} }

// Encode wraps pos, where the next page of r's listing starts, as a cursor
// bound to r's listing (CursorBinding).
func (k CursorKey) Encode(r *http.Request, pos string) string { return k.Bind(CursorBinding(r), pos) }

// Query reads the cursor query parameter and returns the id it wraps, ""
// when there is none. A cursor that this API did not return for r's
// listing (Encode), or whose position is no plausible id, is ErrCursor.
func (k CursorKey) Query(r *http.Request) (string, error) {
	s, set, err := queryValue(r, "cursor")
	if err != nil || !set {
		return "", err
	}
	pos, ok := k.Unbind(CursorBinding(r), s)
	if !ok || !workspace.PlausibleID(pos) {
		return "", ErrCursor
	}
	return pos, nil
}

// cursorEncoding writes a cursor in upper-case letters and digits 2 to 7:
// URL-safe, and never key-shaped text ("wk_..."), which the guard of every
// answer would redact (docs/bounds.md), whatever bytes the MAC holds.
var cursorEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// Bind makes the cursor of pos (a position of the listing's own form) for
// the listing whose CursorBinding is binding: its MAC, then pos, in
// cursorEncoding. It panics on the zero key, which would make cursors
// anyone could forge.
func (k CursorKey) Bind(binding, pos string) string {
	if len(k.secret) == 0 {
		panic("httpapi: a cursor made without the cursor key")
	}
	return cursorEncoding.EncodeToString(append(k.mac(binding, pos), pos...))
}

// Unbind returns the position cursor c holds; ok is false unless c was made
// by Bind with this key for binding and is at most maxCursorLength long.
func (k CursorKey) Unbind(binding, c string) (pos string, ok bool) {
	if len(k.secret) == 0 || len(c) > maxCursorLength {
		return "", false
	}
	raw, err := cursorEncoding.DecodeString(c)
	if err != nil || len(raw) < sha256.Size {
		return "", false
	}
	pos = string(raw[sha256.Size:])
	if !hmac.Equal(raw[:sha256.Size], k.mac(binding, pos)) {
		return "", false
	}
	return pos, true
}

// mac is the HMAC-SHA256 of binding and pos, each length-prefixed so that
// no other pair of strings gives the same input.
func (k CursorKey) mac(binding, pos string) []byte {
	m := hmac.New(sha256.New, k.secret)
	for _, part := range []string{binding, pos} {
		var n [4]byte
		binary.BigEndian.PutUint32(n[:], uint32(len(part)))
		m.Write(n[:])
		m.Write([]byte(part))
	}
	return m.Sum(nil)
}

// CursorBinding is what r's cursors are bound to: the caller's workspace,
// r's path, and its query without cursor and limit (a page may ask for
// another size), each length-prefixed.
func CursorBinding(r *http.Request) string {
	q := r.URL.Query()
	q.Del("cursor")
	q.Del("limit")
	caller, _ := callerFrom(r)
	var b []byte
	for _, part := range []string{caller.WorkspaceID, r.URL.EscapedPath(), q.Encode()} {
		b = binary.BigEndian.AppendUint32(b, uint32(len(part)))
		b = append(b, part...)
	}
	return string(b)
}
