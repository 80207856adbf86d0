// Package dynamo stores the Workspace Administration API in one DynamoDB table
// (the single-table model). This file is the one place the key design is written
// down; every item the service stores is listed here.
//
// Main table: PK (partition), SK (sort). GSI1: GSI1PK, GSI1SK (projection ALL).
// Everything a workspace owns lives in the partition WS#<workspaceId>, so every
// key, query and write names the caller's workspace and no request can reach
// another tenant's items. API keys are the one exception: the authorizer finds a
// key by its hash before it knows the workspace; the key's reference in the
// workspace partition is how the keys endpoints find and list it.
//
//	item                PK                  SK                              GSI1PK                     GSI1SK
//	workspace           WS#<ws>             META
//	member              WS#<ws>             MEMBER#<userId>
//	e-mail claim        WS#<ws>             EMAIL#<lower-cased e-mail>
//	invitation          WS#<ws>             INVITE#<inviteId>               WS#<ws>#SEATS              <expiresAt>#<inviteId>   (GSI1 only while it holds a seat)
//	team                WS#<ws>             TEAM#<teamId>
//	team name claim     WS#<ws>             TEAMNAME#<lower-cased trimmed name>   (teamId: the team holding the name)
//	team membership     WS#<ws>             TEAMMEMBER#<teamId>#<userId>    WS#<ws>#USER#<userId>      TEAM#<teamId>
//	agent               WS#<ws>             AGENT#<agentId>                 WS#<ws>#TEAM#<teamId>      AGENT#<agentId>   (GSI1 only when the agent has a team)
//	API key             KEY#<sha256 hex>    KEY                             (the key: scopes, owner, disabled, lastUsedAt, ...)
//	API key reference   WS#<ws>             APIKEY#<keyId>                  (keyHash, expiresAt: how the keys endpoints reach the key)
//	API key count       WS#<ws>             KEYCOUNT                        (count: the references of the workspace)
//	seat release        WS#<ws>             SEATRELEASE#<inviteId>          (a tombstone with a ttl: the seat of a TTL-removed invitation was freed)
//	provisioning record WS#<ws>             PROVISIONED#<kind>#<id>         (kind workspace, member or agent: the newest version a provisioning event applied, and whether it removed the entity; kept after the removal)
//	webhook count       WS#<ws>             WEBHOOKS                        (count, version: bounds and serialises the subscriptions; webhooks.go)
//	webhook             WS#<ws>             WEBHOOK#<webhookId>             (url, eventTypes, thresholds, disabled, secret; its deliveries log in WS#<ws>#WEBHOOK#<webhookId>)
//	migration step      MIGRATION           STEP#<nnn>                      (a migration step's progress: status, each segment's place, counts, lease; migrations.go)
//	scheduler run       SCHEDULER#<day>     RUN                             (a UTC day's scheduler run: doneShards, the resume-index partitions finished; owner and leaseUntil of the run holding it; ttl 35 days; scheduler.go)
//
// The credit engine keeps each agent's and team's counters and running state
// in a partition of their own, so a busy agent never throttles its workspace's
// partition, and GSI2 (projection ALL) is its sparse resume index (and the
// usage export's listing of a team's agents that spent in a month):
//
//	item                PK                           SK                        GSI2PK                  GSI2SK
//	agent credit state  WS#<ws>#AGENTDATA#<agentId>  STATE                     RESUME#DAY#<shard>      <day>#<ws>#<agentId>     (only while stopped by its daily limit)
//	                                                                           RESUME#MONTH#<shard>    <month>#<ws>#<agentId>   (only while stopped by its monthly limit)
//	agent month usage   WS#<ws>#AGENTDATA#<agentId>  USAGE#<YYYY-MM>           (total; dDD spent on day DD; cDD counted toward day DD's limit, zeroed by a reset; listed: its listing item exists;
//	                                                                           written before release 3.0.0: the listing item's GSI keys on the item itself)
//	month listing       WS#<ws>#AGENTDATA#<agentId>  LISTING#<YYYY-MM>         (agentId, teamId; written once, after the month's first usage committed)
//	                    GSI1PK WS#<ws>#AGENTUSAGE#<YYYY-MM>                 GSI1SK AGENT#<agentId>   (the usage export's month listing)
//	                    GSI2PK WS#<ws>#AGENTUSAGE#<YYYY-MM>#TEAM#<teamId>   GSI2SK AGENT#<agentId>   (its team's, only when the agent has a team)
//	chat                WS#<ws>#AGENTDATA#<agentId>  CHAT#<chatId>             (creditsTotal here; the agent-data issue adds the rest)
//	team credit state   WS#<ws>#TEAMDATA#<teamId>    STATE                     RESUME#TEAM#<shard>     <month>#<ws>#<teamId>    (only while paused)
//	usage shard         WS#<ws>#USAGE#<n>            USAGE#<YYYY-MM>#TEAM#<teamId>  (total: a team's month usage, one of usageShards items, n = 0..31)
//	                    WS#<ws>#USAGE#<n>            USAGE#<YYYY-MM>#NOTEAM    (total: the month usage of agents without a team, likewise)
//	applied event       WS#<ws>#EVENT#<eventId>      EVENT                     (ttl: the dedup window)
//	threshold marker    WS#<ws>#AGENTDATA#<agentId>  THRESHOLD#<limit>#<period>#<pct>  (daily or monthly; ttl: past the period)
//	                    WS#<ws>#TEAMDATA#<teamId>    THRESHOLD#team#<month>#<pct>
//	outbox item         WS#<ws>#OUTBOX#<eventId>     OUTBOX                    (a limit event for the stream; ttl: 48 h)
//
// Agent data (chats, diary, key metrics) lives in the agent's partition and
// in partitions of their own per chat and per metric, never in the
// workspace's: a busy agent's history throttles nobody else, and no chat's
// size limits another's.
//
//	item                PK                                        SK                               GSI1PK                                    GSI1SK
//	chat                WS#<ws>#AGENTDATA#<agentId>               CHAT#<chatId>                    (creditsTotal ADDed by usage; the chat's fields SET by chat.message, never Put)
//	message part        WS#<ws>#AGENTDATA#<agentId>#CHAT#<chatId> MSG#<ts>#<messageId>#<part:03d>  (the body in parts of at most messagePartBytes, so no item nears 400 KB)
//	diary entry         WS#<ws>#AGENTDATA#<agentId>               DIARY#<timestamp>#<entryId>      WS#<ws>#AGENTDATA#<agentId>#CONV#<convId> DIARY#<timestamp>#<entryId>  (GSI1 only with a conversation)
//	diary month         WS#<ws>#AGENTDATA#<agentId>               DIARYMONTH#<YYYY-MM>             (dDD: entries on day DD, ADDed)
//	metric record       WS#<ws>#AGENTDATA#<agentId>#METRIC#<name> REC#<occurredAt>#<recordId>
//	metric day          WS#<ws>#AGENTDATA#<agentId>#METRIC#<name> DAY#<YYYY-MM-DD>                 (count, valueCount, sum: ADDed per record)
//	metric total        WS#<ws>#AGENTDATA#<agentId>#METRIC#<name> TOTAL                            (count: ADDed per record)
//
// Each event's items are written in one transaction with its event marker
// and a ConditionCheck that the agent exists, so an event applies once and
// only to an agent of its workspace. A period of key metrics reads its whole
// days' summaries and the records of its partial first and last days only.
//
// Every counter is keyed by its UTC period, so a counter never mixes two
// periods, whenever the scheduler runs. Usage is applied in one transaction
// with the events' markers (attribute_not_exists), so an event counts once;
// a transaction holds one workspace's events only. An agent's latest
// activity (on its state item, one conditional UpdateItem per agent and
// batch, only forward) and its month listing item are written after the
// transaction commits, never in it: a usage transaction touches no index
// and no item a request's decision reads.
// A workspace's month usage is counted per usage group (each team, and the
// agents without a team) in usageShards partitions of the workspace's own
// (usageshards.go): a transaction writes one shard, picked at random per
// attempt and moved when a cancellation names it, so concurrent transactions
// of one workspace rarely meet on an item (real DynamoDB cancels those that
// do) and no partition takes more than its share. There is no workspace
// counter: a team's total is its usageShards items (one BatchGetItem), the
// workspace's the sum of one Query per shard partition. A transaction never
// spans two workspaces. Running states carry a version that every
// change increments under a condition on the version read, so a decision made
// on stale figures fails and is taken again on fresh ones.
//
// Invariants kept by conditional writes and transactions:
//
//   - A team name claim exists for every team; creating a team puts it with
//     attribute_not_exists in the team's transaction, and a rename deletes the
//     old claim (conditioned on naming the team) and puts the new one in one
//     transaction conditioned on the team's current name, so two teams never
//     share a name, case-insensitively, under any concurrency.
//
//   - A member item's teams map (team id -> role) mirrors the team membership
//     items of that user: PUT and DELETE of a membership change both in one
//     transaction (with ConditionChecks that the team exists and team
//     settings are on), so the members list reads one item per member.
//
//   - Tags (members, agents, teams) and an agent's showTokenOptimisationInfo
//     are written by one UpdateItem per changed entity, conditioned on the
//     value read (attribute_exists and tags = the tags read), so a write based
//     on a stale read fails and that entity alone is read again.
//
//   - An e-mail claim exists for every member and every invitation; creating
//     either puts the claim with attribute_not_exists, so one address is one
//     member or one invitation per workspace, case-insensitively, under any
//     concurrency.
//
//   - workspace.seatsUsed counts members plus invitations whose holdsSeat is
//     true. It changes only with atomic ADD in the same transaction as the
//     items that take or free seats, conditioned on seatsUsed < seats when a
//     seat is taken; a batch revoke frees all of a transaction's seats with one
//     ADD, so the workspace item sees one write per transaction, not per id.
//     An expired invitation's seat is released lazily, at most once, by setting
//     holdsSeat false (and leaving the seat index) under a condition in that
//     same transaction. The seat index (GSI1 WS#<ws>#SEATS, sorted by expiry)
//     holds only seat holders, so the expired ones are found in O(released)
//     reads however many invitations the workspace has; being eventually
//     consistent, it only proposes: the transaction's conditions decide.
//
//   - An API key item and its reference are created and removed together, in
//     one transaction with an atomic ADD to the workspace's key count, so the
//     count is the number of references. Creating one is conditioned on
//     count < workspace.MaxLiveKeys. A revoked key's items are deleted; an
//     expired key's items stay (listed, refused by the authorizer) until a
//     create finds the count full, which first deletes the workspace's
//     expired keys (each delete conditioned on the item still being there)
//     and subtracts exactly what it deleted. The count therefore bounds what
//     the key list reads, and holds at most MaxLiveKeys keys that are neither
//     revoked nor expired under any concurrency. Keys stored before the
//     references existed (release 1.0.0, listed on GSI1 WS#<ws>#KEYS) get
//     theirs from the migration step api-key-references
//     (BackfillKeyReferences); until then the authorizer reads them and the
//     keys endpoints neither list nor count them.
//
//   - lastUsedAt on an API key item is written by the authorizer only with
//     the condition that it is absent or older than an hour, so a key costs
//     at most one write per hour however often it is used.
//
// The audit log keeps each workspace's entries in AuditShards partitions,
// each sorted by time, and lists them newest first by merging them. Each
// entry is Put in the transaction of the change it records (AuditPuts), so
// an entry lands exactly when its change does; its shard is a hash of its
// id, so the entries of one transaction and of concurrent writers spread
// over the shards. Its three filters with an index each are sparse keys of
// the entry: GSI1 by target, GSI2 by the acting key (key actors only) and
// GSI3 (projection ALL), the audit log's own index, by action. The acting
// key's and the action's partitions are split by the same shard as the
// entry; the target's is not: a target's entries record changes to that one
// entity, which its own item's transactions pace far below a partition's
// rate, so a target's entries stay one Query. Every sort key is
// "<at>#<entryId>", so since/until and a page's position bound each Query's
// key condition and no filter reads past its page.
//
//	item                PK                     SK              GSI1PK                           GSI2PK                             GSI3PK                                 ttl
//	audit entry         WS#<ws>#AUDIT#<shard>  <at>#<entryId>  WS#<ws>#AUDIT#TARGET#<targetId>  WS#<ws>#AUDIT#<shard>#KEY#<keyId>  WS#<ws>#AUDIT#<shard>#ACTION#<action>  at + AuditRetentionDays
//	audit entry, 2.0.0  WS#<ws>#AUDIT          <at>#<entryId>  WS#<ws>#AUDIT#TARGET#<targetId>  WS#<ws>#AUDIT#KEY#<keyId>          WS#<ws>#AUDIT#ACTION#<action>          at + AuditRetentionDays
//	                                                           (GSI1SK, GSI2SK, GSI3SK: the SK)
//
// <shard> is 0 .. AuditShards-1: FNV-1a of the entry id, modulo
// AuditShards. Release 2.0.0 wrote every entry to one partition per
// workspace (the 2.0.0 row); those entries are read as one more shard, the
// legacy one, until their TTL has removed them all. A page reads every
// shard of its partition (AuditShards + 1 Queries, sent at once; one for a
// targetId filter), each for at most its limit + 1 newest entries after
// the page's position, and merges them (AuditPage).
//
// A shard's partition takes DynamoDB's 1,000 writes a second, and a
// transactional entry costs 2 of them: a workspace records about 500 x
// AuditShards = 8,000 changes a second, as do one action's and one key's
// GSI partitions. A burst beyond it is throttled, retried by transact
// and slowed, never lost: no change lands without its entry.
//
// The attribute ttl (epoch seconds) is the table's TTL attribute. An
// invitation and its e-mail claim carry its expiry plus the retention period;
// the retention function records each invitation the TTL removes in the
// audit log and releases its seat when it still held one (functions/retention).
package dynamo

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Key attribute names of the table and its index.
const (
	attrPK     = "PK"
	attrSK     = "SK"
	attrGSI1PK = "GSI1PK"
	attrGSI1SK = "GSI1SK"
	// IndexGSI1 is the overloaded secondary index.
	IndexGSI1 = "GSI1"
	// AttrTTL is the table's time-to-live attribute (epoch seconds).
	AttrTTL = "ttl"
)

// Sort-key prefixes and fixed sort keys.
const (
	skMeta          = "META"
	skKey           = "KEY"
	prefixMember    = "MEMBER#"
	prefixEmail     = "EMAIL#"
	prefixInvite    = "INVITE#"
	prefixTeam      = "TEAM#"
	prefixTeamMembr = "TEAMMEMBER#"
	prefixAgent     = "AGENT#"
	prefixTeamName  = "TEAMNAME#"
	prefixKeyRef    = "APIKEY#"
	skKeyCount      = "KEYCOUNT"
)

func wsPK(ws string) string                 { return "WS#" + ws }
func memberSK(userID string) string         { return prefixMember + userID }
func emailSK(email string) string           { return prefixEmail + strings.ToLower(email) }
func inviteSK(id string) string             { return prefixInvite + id }
func teamSK(id string) string               { return prefixTeam + id }
func teamMemberSK(team, user string) string { return prefixTeamMembr + team + "#" + user }
func agentSK(id string) string              { return prefixAgent + id }
func teamNameSK(name string) string         { return prefixTeamName + workspace.TeamNameKey(name) }
func teamMembersPrefix(team string) string  { return prefixTeamMembr + team + "#" }
func keyPK(hash string) string              { return "KEY#" + hash }
func userGSI1PK(ws, user string) string     { return wsPK(ws) + "#USER#" + user }
func teamGSI1PK(ws, team string) string     { return wsPK(ws) + "#TEAM#" + team }
func keyRefSK(id string) string             { return prefixKeyRef + id }
func seatsGSI1PK(ws string) string          { return wsPK(ws) + "#SEATS" }

// Keys of the audit log (see the table above).
const (
	attrGSI3PK = "GSI3PK"
	attrGSI3SK = "GSI3SK"
	// IndexGSI3 is the audit log's index by action.
	IndexGSI3 = "GSI3"
)

// AuditShards is how many partitions a workspace's audit log is written
// over (see the table above): a page of the log is at most AuditShards + 1
// Queries, the legacy partition's included.
const AuditShards = 16

// auditLegacy is the shard of the partition release 2.0.0 wrote every entry
// to, read as one more shard.
const auditLegacy = -1

// auditShardOf is the shard an entry is written to: a hash of its id.
func auditShardOf(id string) int {
	h := fnv.New32a()
	h.Write([]byte(id))
	return int(h.Sum32() % AuditShards)
}

// auditReadShards are the shards a page of the whole log, or of an
// acting key's or an action's entries, reads: every shard, legacy last.
func auditReadShards() []int {
	out := make([]int, 0, AuditShards+1)
	for n := range AuditShards {
		out = append(out, n)
	}
	return append(out, auditLegacy)
}

func auditPK(ws string, shard int) string {
	if shard == auditLegacy {
		return wsPK(ws) + "#AUDIT"
	}
	return fmt.Sprintf("%s#AUDIT#%d", wsPK(ws), shard)
}
func auditTargetGSI1PK(ws, target string) string { return wsPK(ws) + "#AUDIT#TARGET#" + target }
func auditKeyGSI2PK(ws string, shard int, keyID string) string {
	return auditPK(ws, shard) + "#KEY#" + keyID
}
func auditActionGSI3PK(ws string, shard int, a workspace.AuditAction) string {
	return auditPK(ws, shard) + "#ACTION#" + string(a)
}

// auditPosition is an entry's sort key: its time, then its id, so entries
// sort by time and two at one millisecond stay apart.
func auditPosition(at time.Time, id string) string { return storedTime(at) + "#" + id }

// Keys of the credit engine's items (see the table above).
const (
	attrGSI2PK = "GSI2PK"
	attrGSI2SK = "GSI2SK"
	// IndexGSI2 is the sparse index of running states waiting for a new
	// period: agents stopped by a limit, paused teams.
	IndexGSI2   = "GSI2"
	skState     = "STATE"
	skEvent     = "EVENT"
	prefixUsage = "USAGE#"
	prefixChat  = "CHAT#"
	// resumeShards spreads each kind of hold of the resume index over
	// partitions (a wave of stops or resumes writes each at a fraction of
	// its rate); the scheduler reads them all, so raising it needs no
	// migration (entries written under a smaller number sit in partitions
	// still read), and it must never shrink. It was 8 up to release 2.0.0.
	resumeShards = 32
	resumeDay    = "RESUME#DAY#"
	resumeMonth  = "RESUME#MONTH#"
	resumeTeam   = "RESUME#TEAM#"
)

func agentDataPK(ws, agent string) string { return wsPK(ws) + "#AGENTDATA#" + agent }
func teamDataPK(ws, team string) string   { return wsPK(ws) + "#TEAMDATA#" + team }
func eventPK(ws, id string) string        { return wsPK(ws) + "#EVENT#" + id }
func usageSK(month string) string         { return prefixUsage + month }
func chatSK(chat string) string           { return prefixChat + chat }

// usageMonthGSI1PK and teamUsageMonthGSI2PK list the agents with usage in a
// month, of a workspace and of one of its teams, in agent id order: the
// usage export reads only the agents that spent (usageexport.go).
func usageMonthGSI1PK(ws, month string) string { return wsPK(ws) + "#AGENTUSAGE#" + month }
func teamUsageMonthGSI2PK(ws, month, team string) string {
	return usageMonthGSI1PK(ws, month) + "#TEAM#" + team
}

// resumeGSI2 returns the resume-index keys of an entity held back until the
// period after period: the partition is spread over resumeShards by a hash of
// the entity, so a wave of stops never lands on one index partition.
func resumeGSI2(prefix, ws, id, period string) (pk, sk string) {
	h := fnv.New32a()
	h.Write([]byte(ws + "\x00" + id))
	return fmt.Sprintf("%s%d", prefix, h.Sum32()%resumeShards), period + "#" + ws + "#" + id
}

// seatGSI1SK sorts seat holders by expiry, then id.
func seatGSI1SK(expires time.Time, id string) string { return storedTime(expires) + "#" + id }

// seatsExpiredBy is the bound below which seat-holder sort keys expired by
// now: every "<now>#id" sorts before "<now>$", since '#' < '$'.
func seatsExpiredBy(now time.Time) string { return storedTime(now) + "$" }

// hashOfKeyPK returns the key hash an API key item's PK holds.
func hashOfKeyPK(pk string) string { return strings.TrimPrefix(pk, "KEY#") }

// seatReleaseSK marks that the seat of a removed invitation was released.
func seatReleaseSK(inviteID string) string { return "SEATRELEASE#" + inviteID }

// Keys of agent data (see the table above).
const (
	prefixMessage    = "MSG#"
	prefixDiary      = "DIARY#"
	prefixDiaryMonth = "DIARYMONTH#"
	prefixRecord     = "REC#"
	prefixMetricDay  = "DAY#"
	skMetricTotal    = "TOTAL"
)

func chatPK(ws, agent, chat string) string { return agentDataPK(ws, agent) + "#CHAT#" + chat }
func messageSK(ts time.Time, messageID string, part int) string {
	return fmt.Sprintf("%s%s#%s#%03d", prefixMessage, storedTime(ts), messageID, part)
}
func diarySK(ts time.Time, entryID string) string {
	return prefixDiary + storedTime(ts) + "#" + entryID
}
func conversationGSI1PK(ws, agent, conv string) string {
	return agentDataPK(ws, agent) + "#CONV#" + conv
}
func diaryMonthSK(month string) string         { return prefixDiaryMonth + month }
func metricPK(ws, agent, metric string) string { return agentDataPK(ws, agent) + "#METRIC#" + metric }
func recordSK(at time.Time, recordID string) string {
	return prefixRecord + storedTime(at) + "#" + recordID
}
func metricDaySK(day string) string { return prefixMetricDay + day }

// Keys of the limit events' outbox (see the table above, and outbox.go).
// Each event has a partition of its own, like an applied event's marker, so
// a burst of events meets no hot item.
const (
	skOutbox        = "OUTBOX"
	prefixThreshold = "THRESHOLD#"
)

func outboxPK(ws, eventID string) string { return wsPK(ws) + "#OUTBOX#" + eventID }
func thresholdSK(limit, period string, pct int) string {
	return fmt.Sprintf("%s%s#%s#%d", prefixThreshold, limit, period, pct)
}

// Keys of idempotency records (idempotency.go). Each record is a partition
// of its own: a client's retries never load its workspace's partition, and
// a kept answer (up to maxKeptAnswerBytes) never shares an item collection
// with anything. The partition names the workspace, then a hash of the API
// key id and the client's idempotency key, so its length is bounded and no
// client text (which could even be key-shaped) is stored in a key:
//
//	item                PK                                          SK
//	idempotency record  WS#<ws>#IDEMPOTENCY#<sha256(keyId, key)>    IDEMPOTENCY   (ttl: IdempotencyKeep after its answer)
//
// The service keeps one item of its own, outside every workspace: the
// cursor key (cursorkey.go), SERVICE#CURSORS / KEY.
const skIdempotency = "IDEMPOTENCY"

func idempotencyPK(k workspace.IdempotencyKey) string {
	h := sha256.New()
	h.Write([]byte(k.KeyID))
	h.Write([]byte{0})
	h.Write([]byte(k.Key))
	return wsPK(k.WorkspaceID) + "#IDEMPOTENCY#" + hex.EncodeToString(h.Sum(nil))
}
