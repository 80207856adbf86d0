package dynamo

import (
	"encoding/json"
	"time"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// Item types and attributes of agent data (keys.go has their keys).
const (
	typeMessagePart = "messagePart"
	typeDiaryEntry  = "diaryEntry"
	typeDiaryMonth  = "diaryMonth"
	typeMetricRec   = "metricRecord"
	typeMetricDay   = "metricDay"
	typeMetricTotal = "metricTotal"

	attrCount      = "count"
	attrValueCount = "valueCount"
	attrSum        = "sum"
)

// messagePartBytes is the most of a message body one item holds: with the
// message's other attributes (bounded), an item stays well under 400 KB.
const messagePartBytes = 300_000

// chatItem is a chat's own fields. The usage ingest ADDs creditsTotal to the
// same item, so it is only ever written with UpdateItem SET/ADD; an item
// without agentId was made by usage alone (no message yet) and is no chat.
type chatItem struct {
	keys
	ID               string  `dynamodbav:"id"`
	AgentID          string  `dynamodbav:"agentId"`
	CreatedDate      string  `dynamodbav:"createdDate"`
	Starred          bool    `dynamodbav:"starred"`
	ShortDesc        string  `dynamodbav:"shortDesc"`
	Effort           string  `dynamodbav:"effort"`
	LLMModel         string  `dynamodbav:"llmModel"`
	LLMResolvedModel string  `dynamodbav:"llmResolvedModel"`
	CreditsTotal     float64 `dynamodbav:"creditsTotal"`
	TransportType    string  `dynamodbav:"transportType"`
}

func (i chatItem) domain() workspace.ChatMeta {
	return workspace.ChatMeta{
		ID: i.ID, AgentID: i.AgentID, CreatedDate: loadedTime(i.CreatedDate), Starred: i.Starred,
		ShortDesc: i.ShortDesc, Effort: i.Effort, LLMModel: i.LLMModel, LLMResolvedModel: i.LLMResolvedModel,
		CreditsTotal: i.CreditsTotal, TransportType: i.TransportType,
	}
}

// messagePartItem is one part of a message: part 0 carries the message's
// fields and how many parts its body has; every part carries a slice of the
// body's bytes.
type messagePartItem struct {
	keys
	Part           int    `dynamodbav:"part"`
	Parts          int    `dynamodbav:"parts,omitempty"`
	MessageID      string `dynamodbav:"messageId,omitempty"`
	Format         string `dynamodbav:"format,omitempty"`
	TS             string `dynamodbav:"ts,omitempty"`
	AppUserID      string `dynamodbav:"appUserId,omitempty"`
	TokenMetadata  string `dynamodbav:"tokenMetadata,omitempty"`
	SenderName     string `dynamodbav:"senderName,omitempty"`
	SenderImageURL string `dynamodbav:"senderImageUrl,omitempty"`
	Body           []byte `dynamodbav:"body"`
}

// toMessageParts splits m over its items.
func toMessageParts(ws, agent, chat string, m workspace.Message) []messagePartItem {
	pk := chatPK(ws, agent, chat)
	body := []byte(m.Body)
	n := max(1, (len(body)+messagePartBytes-1)/messagePartBytes)
	parts := make([]messagePartItem, n)
	for p := range parts {
		chunk := body[p*messagePartBytes : min(len(body), (p+1)*messagePartBytes)]
		parts[p] = messagePartItem{keys: keys{PK: pk, SK: messageSK(m.TS, m.MessageID, p), Entity: typeMessagePart}, Part: p, Body: chunk}
	}
	parts[0].Parts, parts[0].MessageID, parts[0].Format, parts[0].TS = n, m.MessageID, m.Format, storedTime(m.TS)
	parts[0].AppUserID, parts[0].TokenMetadata = m.AppUserID, string(m.TokenMetadata)
	parts[0].SenderName, parts[0].SenderImageURL = m.SenderName, m.SenderImageURL
	return parts
}

// message is the message whose first part is i (the body still to be
// completed by its other parts).
func (i messagePartItem) message() workspace.Message {
	m := workspace.Message{
		Format: i.Format, Body: json.RawMessage(i.Body), MessageID: i.MessageID, AppUserID: i.AppUserID,
		TS: loadedTime(i.TS), SenderName: i.SenderName, SenderImageURL: i.SenderImageURL,
	}
	if i.TokenMetadata != "" {
		m.TokenMetadata = json.RawMessage(i.TokenMetadata)
	}
	return m
}

// diaryItem is a diary entry; with a conversation it is also in GSI1 under it.
type diaryItem struct {
	keys
	ID             string `dynamodbav:"id"`
	AgentID        string `dynamodbav:"agentId"`
	CustomerID     string `dynamodbav:"customerId,omitempty"`
	Timestamp      string `dynamodbav:"timestamp"`
	Type           string `dynamodbav:"type,omitempty"`
	Title          string `dynamodbav:"title,omitempty"`
	Details        string `dynamodbav:"details,omitempty"`
	ConversationID string `dynamodbav:"conversationId,omitempty"`
}

func toDiaryItem(ws string, e workspace.DiaryEntry) diaryItem {
	it := diaryItem{
		keys: keys{PK: agentDataPK(ws, e.AgentID), SK: diarySK(e.Timestamp, e.ID), Entity: typeDiaryEntry},
		ID:   e.ID, AgentID: e.AgentID, CustomerID: e.CustomerID, Timestamp: storedTime(e.Timestamp),
		Type: e.Type, Title: e.Title, Details: e.Details, ConversationID: e.ConversationID,
	}
	if e.ConversationID != "" {
		it.GSI1PK, it.GSI1SK = conversationGSI1PK(ws, e.AgentID, e.ConversationID), it.SK
	}
	return it
}

func (i diaryItem) domain() workspace.DiaryEntry {
	return workspace.DiaryEntry{
		ID: i.ID, AgentID: i.AgentID, CustomerID: i.CustomerID, Timestamp: loadedTime(i.Timestamp),
		Type: i.Type, Title: i.Title, Details: i.Details, ConversationID: i.ConversationID,
	}
}

// recordItem is one key-metric record.
type recordItem struct {
	keys
	ID         string   `dynamodbav:"id"`
	Metric     string   `dynamodbav:"metric"`
	OccurredAt string   `dynamodbav:"occurredAt"`
	Value      *float64 `dynamodbav:"value,omitempty"`
	Ref        string   `dynamodbav:"ref,omitempty"`
	Note       string   `dynamodbav:"note,omitempty"`
}

func toRecordItem(ws, agent string, r workspace.MetricRecord) recordItem {
	return recordItem{
		keys: keys{PK: metricPK(ws, agent, r.Metric), SK: recordSK(r.OccurredAt, r.ID), Entity: typeMetricRec},
		ID:   r.ID, Metric: r.Metric, OccurredAt: storedTime(r.OccurredAt), Value: r.Value, Ref: r.Ref, Note: r.Note,
	}
}

func (i recordItem) domain() workspace.MetricRecord {
	return workspace.MetricRecord{ID: i.ID, Metric: i.Metric, OccurredAt: loadedTime(i.OccurredAt), Value: i.Value, Ref: i.Ref, Note: i.Note}
}

// metricSumItem is a metric's day summary or its all-time total.
type metricSumItem struct {
	keys
	Count      int     `dynamodbav:"count"`
	ValueCount int     `dynamodbav:"valueCount"`
	Sum        float64 `dynamodbav:"sum"`
}

func (i metricSumItem) totals() workspace.MetricTotals {
	return workspace.MetricTotals{Count: i.Count, ValueCount: i.ValueCount, Sum: i.Sum}
}

// dayOfMetricSK returns the day a metric day's sort key names.
func dayOfMetricSK(sk string) (time.Time, bool) {
	t, err := time.Parse(time.DateOnly, sk[len(prefixMetricDay):])
	return t, err == nil
}
