package dynamo_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// scanAll reads every item of a test's own table: only to look at what was
// stored, never a request path.
func scanAll(t *testing.T, store *dynamo.Store) []map[string]types.AttributeValue {
	t.Helper()
	out, err := store.Client().Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(store.Table())})
	if err != nil {
		t.Fatal(err)
	}
	return out.Items
}

// claimedKey returns a fresh table where claim holds the idempotency key
// key of ws1's key1 (for a request with fingerprint "fp"), and the time of
// the claim.
func claimedKey(t *testing.T, key, claim string) (*dynamo.Store, workspace.IdempotencyKey, time.Time) {
	t.Helper()
	store, _ := dynamolocal.NewStore(t)
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	k := workspace.IdempotencyKey{WorkspaceID: "ws1", KeyID: "key1", Key: key}
	if _, claimed, err := store.ClaimIdempotencyKey(context.Background(), k, "fp", claim, now); err != nil || !claimed {
		t.Fatalf("claim: %v %v", claimed, err)
	}
	return store, k, now
}

func TestAKeptAnswerIsStoredCompressedWithItsTTLAndNoClientKey(t *testing.T) {
	t.Parallel()
	store, k, now := claimedKey(t, "wk_"+strings.Repeat("Z", 40), "c1")
	ctx := context.Background()
	body := bytes.Repeat([]byte(`{"id":"x","success":true},`), 2000)
	answer := workspace.IdempotentAnswer{Status: 200, ContentType: "application/json", Location: "/x", Body: body}
	done := now.Add(time.Second)
	if err := store.KeepIdempotentAnswer(ctx, k, "c1", answer, done); err != nil {
		t.Fatal(err)
	}
	items := scanAll(t, store)
	if len(items) != 1 {
		t.Fatalf("%d items, want the one record", len(items))
	}
	it := items[0]
	if ttl, _ := it[dynamo.AttrTTL].(*types.AttributeValueMemberN); ttl == nil || ttl.Value != strconv.FormatInt(done.Add(workspace.IdempotencyKeep).Unix(), 10) {
		t.Errorf("ttl %v, want the answer's time plus %v", it[dynamo.AttrTTL], workspace.IdempotencyKeep)
	}
	if stored, _ := it["body"].(*types.AttributeValueMemberB); stored == nil || len(stored.Value) >= len(body)/10 {
		t.Errorf("stored body not compressed (%d bytes for %d)", len(stored.Value), len(body))
	}
	for name, v := range it {
		if s, ok := v.(*types.AttributeValueMemberS); ok && workspace.ContainsKey(s.Value) {
			t.Errorf("attribute %s holds the client's key-shaped text", name)
		}
	}
	prior, claimed, err := store.ClaimIdempotencyKey(ctx, k, "fp", "c2", done)
	if err != nil || claimed {
		t.Fatalf("repeat claimed %v (%v), want the kept record", claimed, err)
	}
	got, err := prior.Repeat("fp")
	if err != nil || got.Status != 200 || got.ContentType != "application/json" || got.Location != "/x" || !bytes.Equal(got.Body, body) {
		t.Errorf("repeat = %d %q %q (%d bytes, %v), want the kept answer", got.Status, got.ContentType, got.Location, len(got.Body), err)
	}
}

func TestAnAnswerTooLargeToKeepReleasesTheKey(t *testing.T) {
	t.Parallel()
	store, k, now := claimedKey(t, "big", "c1")
	ctx := context.Background()
	noise := make([]byte, 1<<20) // random bytes do not compress
	_, _ = rand.Read(noise)
	err := store.KeepIdempotentAnswer(ctx, k, "c1", workspace.IdempotentAnswer{Status: 200, Body: noise}, now)
	if !errors.Is(err, dynamo.ErrAnswerNotKept) {
		t.Fatalf("keep = %v, want ErrAnswerNotKept", err)
	}
	if _, claimed, err := store.ClaimIdempotencyKey(ctx, k, "fp", "c2", now); err != nil || !claimed {
		t.Errorf("after the answer was not kept: claimed %v (%v), want the key free for a repeat to run", claimed, err)
	}
}

func TestOnlyTheClaimThatHoldsAKeyKeepsOrReleasesIt(t *testing.T) {
	t.Parallel()
	store, k, now := claimedKey(t, "k", "mine")
	ctx := context.Background()
	if err := store.ReleaseIdempotencyKey(ctx, k, "theirs"); err == nil {
		t.Errorf("another claim released the key")
	}
	if err := store.KeepIdempotentAnswer(ctx, k, "theirs", workspace.IdempotentAnswer{Status: 200}, now); err == nil {
		t.Errorf("another claim kept an answer")
	}
	if err := store.ReleaseIdempotencyKey(ctx, k, "mine"); err != nil {
		t.Fatal(err)
	}
	if err := store.KeepIdempotentAnswer(ctx, k, "mine", workspace.IdempotentAnswer{Status: 200}, now); err == nil {
		t.Errorf("a released claim kept an answer")
	}
	if _, claimed, err := store.ClaimIdempotencyKey(ctx, k, "fp", "next", now); err != nil || !claimed {
		t.Errorf("after the release: claimed %v (%v), want the key free", claimed, err)
	}
}
