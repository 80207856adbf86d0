package dynamo

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Release200AuditItems encodes entries (each with its id) of workspace ws
// as release 2.0.0 wrote them, every one in the workspace's one partition
// and its acting key's and action's unsplit index partitions: the legacy
// shard a page still reads.
func Release200AuditItems(ws string, entries []workspace.AuditEntry, retention time.Duration) ([]map[string]types.AttributeValue, error) {
	out := make([]map[string]types.AttributeValue, 0, len(entries))
	for _, e := range entries {
		it := toAuditItem(ws, e, retention)
		it.PK = auditPK(ws, auditLegacy)
		it.GSI3PK = auditActionGSI3PK(ws, auditLegacy, e.Action)
		if it.GSI2PK != "" {
			it.GSI2PK = auditKeyGSI2PK(ws, auditLegacy, e.Actor.KeyID)
		}
		raw, err := marshal(it)
		if err != nil {
			return nil, err
		}
		out = append(out, raw)
	}
	return out, nil
}
