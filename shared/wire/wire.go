// Package wire holds the JSON forms of the agent data that ingest events
// bring in and the API answers with: a chat message, a chat's transport and
// a diary entry, each written out once, so what arrives and what leaves
// cannot drift apart (docs/ingest-events.md, docs/agent-data.md). It holds
// plain types only: the ingest function links it without the HTTP layer,
// and the rules (ingest's validation, the read side's redaction) stay with
// each side.
package wire

import "encoding/json"

// ChatMessage is one chat message: a chat.message event's message, and one
// of the messages GET .../chats/{chatId} answers. Body is any JSON value in
// the provider's native form, read as Format says; TokenMetadata is an
// object; TS is an RFC 3339 timestamp.
type ChatMessage struct {
	Format         string          `json:"format"`
	Body           json.RawMessage `json:"body"`
	MessageID      string          `json:"messageId"`
	AppUserID      string          `json:"appUserId"`
	TS             string          `json:"ts"`
	TokenMetadata  json.RawMessage `json:"tokenMetadata"`
	SenderName     string          `json:"senderName"`
	SenderImageURL string          `json:"senderImageUrl"`
}

// Transport is how a chat reaches its agent other than through the portal:
// a chat.message event's chat.transport, and a chat's transport in GET
// .../chats/{chatId}. A portal chat has none.
type Transport struct {
	Type string `json:"type"`
}

// DiaryEntry is one diary entry: a diary.entry event's entry, and, with the
// agent it belongs to (which an event carries in its head), one of the
// entries GET .../diary answers. Timestamp is an RFC 3339 timestamp;
// ConversationID is empty for an entry without a conversation, and then
// absent from an answer.
type DiaryEntry struct {
	ID             string `json:"id"`
	CustomerID     string `json:"customerId"`
	Timestamp      string `json:"timestamp"`
	Type           string `json:"type"`
	Title          string `json:"title"`
	Details        string `json:"details"`
	ConversationID string `json:"conversationId,omitempty"`
}
