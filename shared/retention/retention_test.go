package retention_test

import (
	"bytes"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/infra/apitest"
	"github.com/agentplatform/workspaceapi/infra/awscalls"
	"github.com/agentplatform/workspaceapi/infra/awsevents"
	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

func TestMain(m *testing.M) { os.Exit(dynamolocal.RunTests(m)) }

const key = "wk_retentionTestKey000000000000000000001"

const fixture = `{"workspaces": [{"id": "ws_r", "name": "R", "seats": 3, "teamSettingsEnabled": false,
 "allowedEmailDomains": [], "defaultDailyCreditLimit": null, "teams": [], "agents": [], "invites": [], "events": [],
 "members": [{"id": "u1", "email": "owner@r.example", "name": "Owner", "role": "admin", "tags": [], "joinedAt": "2026-01-01T00:00:00Z"}],
 "apiKeys": [{"key": "` + key + `", "name": "admin", "userId": "u1", "scopes": ["read", "write", "invite"], "teamId": null, "expiresAt": null, "disabled": false}]}]}`

// invoke sends a stream batch to the retention function through the local
// runner's /_local/invoke, as Lambda's event source mapping would.
func invoke(t *testing.T, env *apitest.Env, records ...events.DynamoDBEventRecord) string {
	t.Helper()
	return string(awscalls.Invoke(t, env.URL, "RetentionFunction", events.DynamoDBEvent{Records: records}))
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
		records []events.DynamoDBEventRecord
		want    int
	}{
		{"a removal by a user is not the TTL's", []events.DynamoDBEventRecord{awsevents.Removal("1", awsevents.Item(awsevents.Invitation("ws_r", inv.ID, true)), false)}, 2},
		{"a removed invitation that held no seat", []events.DynamoDBEventRecord{awsevents.TTLRemoval("2", "ws_r", "inv_seatless", false)}, 2},
		{"the TTL removed a seat holder: its seat is freed", []events.DynamoDBEventRecord{awsevents.TTLRemoval("3", "ws_r", inv.ID, true)}, 1},
		{"the same record again frees nothing more", []events.DynamoDBEventRecord{awsevents.TTLRemoval("3", "ws_r", inv.ID, true)}, 1},
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
	bad := awsevents.TTLRemoval("77", string(bytes.Repeat([]byte("w"), 3000)), "inv_x", true)
	got := invoke(t, env, awsevents.TTLRemoval("76", "ws_gone", "inv_y", true), bad)
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
	if got := invoke(t, env, awsevents.TTLRemoval("5", "ws_r", inv.ID, true)); got != `{"batchItemFailures":[]}` {
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
