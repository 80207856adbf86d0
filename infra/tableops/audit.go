package tableops

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// maxTransactItems is TransactWriteItems' limit of items per call.
const maxTransactItems = 100

// PutAuditEntries writes entries into workspace ws's audit log through the
// store's own builder (dynamo.Store.AuditPuts), 100 a transaction, with no
// change beside them: for tests that need a log of a given shape, never a
// request path, where every entry rides in its change's transaction.
func PutAuditEntries(ctx context.Context, store *dynamo.Store, ws string, entries []workspace.AuditEntry) error {
	for start := 0; start < len(entries); start += maxTransactItems {
		puts, err := store.AuditPuts(ws, entries[start:min(start+maxTransactItems, len(entries))]...)
		if err != nil {
			return err
		}
		if _, err := store.Client().TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: puts}); err != nil {
			return fmt.Errorf("put audit entries: %w", err)
		}
	}
	return nil
}
