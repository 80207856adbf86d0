package dynamo_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
)

// TestCursorKeyIsMadeOnceAndSharedByEveryRacer: racing first loads all get
// the one key of 32 bytes, and later loads get it again.
func TestCursorKeyIsMadeOnceAndSharedByEveryRacer(t *testing.T) {
	store, _ := dynamolocal.NewStore(t)
	ctx := context.Background()
	keys := make(chan []byte, 8)
	for range 8 {
		go func() {
			k, err := store.CursorKey(ctx)
			if err != nil {
				t.Error(err)
			}
			keys <- k
		}()
	}
	first := <-keys
	if len(first) != 32 {
		t.Fatalf("cursor key of %d bytes, want 32", len(first))
	}
	for range 7 {
		if k := <-keys; !bytes.Equal(k, first) {
			t.Fatal("two racing loads got different cursor keys")
		}
	}
	again, err := store.CursorKey(ctx)
	if err != nil || !bytes.Equal(again, first) {
		t.Fatalf("a later load: %x, %v; want the first key", again, err)
	}
}
