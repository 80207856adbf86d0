package retention_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

func TestMain(m *testing.M) { os.Exit(dynamolocal.RunTests(m)) }

const key = "wk_retentionTestKey000000000000000000001"

const fixture = `{"workspaces": [{"id": "ws_r", "name": "R", "seats": 3, "teamSettingsEnabled": false,
 "allowedEmailDomains": [], "defaultDailyCreditLimit": null, "teams": [], "agents": [], "invites": [], "events": [],
 "members": [{"id": "u1", "email": "owner@r.example", "name": "Owner", "role": "admin", "tags": [], "joinedAt": "2026-01-01T00:00:00Z"}],
 "apiKeys": [{"key": "` + key + `", "name": "admin", "userId": "u1", "scopes": ["read", "write", "invite"], "teamId": null, "expiresAt": null, "disabled": false}]}]}`

// ttlRemoval is the stream record DynamoDB writes when the time to live
// deletes an item (userIdentity Service / dynamodb.amazonaws.com), as
// Lambda's event source delivers it.
func ttlRemoval(seq, ws, id string, holdsSeat bool, byTTL bool) map[string]any {
	rec := map[string]any{
		"eventID": "ev" + seq, "eventName": "REMOVE", "eventSource": "aws:dynamodb", "eventVersion": "1.1",
		"awsRegion": "us-east-1", "eventSourceARN": "arn:aws:dynamodb:us-east-1:123456789012:table/t/stream/2026-11-21T00:00:00.000",
		"dynamodb": map[string]any{
			"ApproximateCreationDateTime": 1795000000, "SequenceNumber": seq, "SizeBytes": 300, "StreamViewType": "OLD_IMAGE",
			"Keys": map[string]any{"PK": map[string]string{"S": "WS#" + ws}, "SK": map[string]string{"S": "INVITE#" + id}},
			"OldImage": map[string]any{
				"PK": map[string]string{"S": "WS#" + ws}, "SK": map[string]string{"S": "INVITE#" + id},
				"entity": map[string]string{"S": "invitation"}, "id": map[string]string{"S": id},
				"workspaceId": map[string]string{"S": ws}, "holdsSeat": map[string]bool{"BOOL": holdsSeat},
			},
		},
	}
	if byTTL {
		rec["userIdentity"] = map[string]string{"type": "Service", "principalId": "dynamodb.amazonaws.com"}
	}
	return rec
}

// invoke sends a stream batch to the retention function through the local
// runner's /_local/invoke, as Lambda's event source mapping would.
func invoke(t *testing.T, env *apitest.Env, records ...map[string]any) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"Records": records})
	res, err := http.Post(env.URL+"/_local/invoke/RetentionFunction", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out bytes.Buffer
	_, _ = out.ReadFrom(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("invoke: %d %s", res.StatusCode, out.String())
	}
	return out.String()
}

func seatsUsed(t *testing.T, env *apitest.Env) int {
	t.Helper()
	w, err := env.Store.Workspace(t.Context(), "ws_r")
	if err != nil {
		t.Fatal(err)
	}
	return w.SeatsUsed
}

func TestTheTTLRemovesAnInvitationAfterRetentionAndItsSeatIsFreedOnce(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, fixture)
	res := env.Do(t, http.MethodPost, "/workspaceapi/invites", key, `{"email": "late@r.example", "role": "member", "expiresInDays": 1}`)
	if res.Status != http.StatusCreated {
		t.Fatalf("invite: %d %s", res.Status, res.Body)
	}
	var inv struct{ ID string }
	res.JSON(t, &inv)

	// The invitation and its claim carry expiry plus 180 days as their TTL.
	db := dynamolocal.NewClient(t, nil)
	wantTTL := apitest.Start.Add(24*time.Hour + workspace.DefaultInviteRetention).Unix()
	for _, sk := range []string{"INVITE#" + inv.ID, "EMAIL#late@r.example"} {
		out, err := db.GetItem(t.Context(), &dynamodb.GetItemInput{TableName: aws.String(env.Store.Table()),
			Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "WS#ws_r"}, "SK": &types.AttributeValueMemberS{Value: sk}}})
		if err != nil {
			t.Fatal(err)
		}
		ttl, _ := out.Item["ttl"].(*types.AttributeValueMemberN)
		if ttl == nil || ttl.Value != strconv.FormatInt(wantTTL, 10) {
			t.Errorf("%s: ttl = %v, want %d (expiry plus the retention period)", sk, out.Item["ttl"], wantTTL)
		}
		// DynamoDB Local keeps TTL settings but deletes nothing: remove the
		// items as the time to live would once the retention has passed.
		if _, err := db.DeleteItem(t.Context(), &dynamodb.DeleteItemInput{TableName: aws.String(env.Store.Table()),
			Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "WS#ws_r"}, "SK": &types.AttributeValueMemberS{Value: sk}}}); err != nil {
			t.Fatal(err)
		}
	}
	if got := seatsUsed(t, env); got != 2 {
		t.Fatalf("seatsUsed = %d before the stream record, want 2 (the owner and the invitation)", got)
	}

	tests := []struct {
		name    string
		records []map[string]any
		want    int
	}{
		{"a removal by a user is not the TTL's", []map[string]any{ttlRemoval("1", "ws_r", inv.ID, true, false)}, 2},
		{"a removed invitation that held no seat", []map[string]any{ttlRemoval("2", "ws_r", "inv_seatless", false, true)}, 2},
		{"the TTL removed a seat holder: its seat is freed", []map[string]any{ttlRemoval("3", "ws_r", inv.ID, true, true)}, 1},
		{"the same record again frees nothing more", []map[string]any{ttlRemoval("3", "ws_r", inv.ID, true, true)}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := invoke(t, env, tc.records...); got != `{"batchItemFailures":[]}` {
				t.Errorf("result %s, want no failures", got)
			}
			if got := seatsUsed(t, env); got != tc.want {
				t.Errorf("seatsUsed = %d, want %d", got, tc.want)
			}
		})
	}
	// The address is free: it is invited as a new one.
	if again := env.Do(t, http.MethodPost, "/workspaceapi/invites", key, `{"email": "late@r.example", "role": "member"}`); again.Status != http.StatusCreated {
		t.Errorf("re-invite after removal: %d %s, want 201", again.Status, again.Body)
	}
}

func TestAFailedReleaseIsReportedByItsSequenceNumber(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, fixture)
	// A workspace id DynamoDB refuses as a key (over 2 KB) makes the write fail.
	bad := ttlRemoval("77", string(bytes.Repeat([]byte("w"), 3000)), "inv_x", true, true)
	got := invoke(t, env, ttlRemoval("76", "ws_gone", "inv_y", true, true), bad)
	if want := `{"batchItemFailures":[{"itemIdentifier":"77"}]}`; got != want {
		t.Errorf("result %s, want %s", got, want)
	}
}

// The time to live removes an invitation and its claim one at a time. While
// the claim outlives the invitation, a re-invitation of the address must take
// a seat of its own: the removed invitation's seat is the retention function's
// to free, and freeing it twice would let the workspace exceed its seats.
func TestASeatFreedByTheRetentionFunctionDoesNotPassThroughTheClaimLeftBehind(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, fixture)
	res := env.Do(t, http.MethodPost, "/workspaceapi/invites", key, `{"email": "late@r.example", "role": "member", "expiresInDays": 1}`)
	if res.Status != http.StatusCreated {
		t.Fatalf("invite: %d %s", res.Status, res.Body)
	}
	var inv struct{ ID string }
	res.JSON(t, &inv)
	env.Clock.Advance(48 * time.Hour)

	// The time to live removes the invitation, not yet its claim.
	db := dynamolocal.NewClient(t, nil)
	if _, err := db.DeleteItem(t.Context(), &dynamodb.DeleteItemInput{TableName: aws.String(env.Store.Table()),
		Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "WS#ws_r"}, "SK": &types.AttributeValueMemberS{Value: "INVITE#" + inv.ID}}}); err != nil {
		t.Fatal(err)
	}
	if got := invoke(t, env, ttlRemoval("5", "ws_r", inv.ID, true, true)); got != `{"batchItemFailures":[]}` {
		t.Fatalf("result %s, want no failures", got)
	}
	if got := seatsUsed(t, env); got != 1 {
		t.Fatalf("seatsUsed = %d after the release, want 1 (the owner)", got)
	}
	if again := env.Do(t, http.MethodPost, "/workspaceapi/invites", key, `{"email": "late@r.example", "role": "member"}`); again.Status != http.StatusCreated {
		t.Fatalf("re-invite: %d %s, want 201", again.Status, again.Body)
	}
	if got := seatsUsed(t, env); got != 2 {
		t.Errorf("seatsUsed = %d, want 2 (the owner and the new invitation)", got)
	}
}
