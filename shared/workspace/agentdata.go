package workspace

import (
	"encoding/json"
	"slices"
	"time"
)

// Bounds of agent data (docs/bounds.md, Agent data; also in the OpenAPI
// document): larger than MaxStringLength where the text is the
// point of the field.
const (
	// MaxDiaryDetailsLength bounds a diary entry's details (characters).
	MaxDiaryDetailsLength = 16384
	// MaxMetricNoteLength bounds a key-metric record's note (characters).
	MaxMetricNoteLength = 4096
	// MaxMessageBodyBytes bounds one chat message's body as JSON: an SQS
	// message carries at most 1 MiB, and the store splits bodies over items
	// of its own size, so no item outgrows DynamoDB's 400 KB.
	MaxMessageBodyBytes = 1 << 20
	// MaxChatBytes bounds the stored JSON of one chat's messages that the
	// chat route reads: past it the route answers 413 rather than exhaust
	// its function's memory. The response limit itself is the compressed
	// size (see the OpenAPI document).
	MaxChatBytes = 64 << 20
)

// Message formats (docs/agent-data.md, Chats): how a message's body is to be read.
const (
	FormatAnthropic = "anthropic"
	FormatOpenAI    = "openai"
	FormatText      = "text"
)

// ChatMeta is a chat's own fields, without its messages.
type ChatMeta struct {
	ID               string
	AgentID          string
	CreatedDate      time.Time
	Starred          bool
	ShortDesc        string
	Effort           string
	LLMModel         string
	LLMResolvedModel string
	// CreditsTotal is the forward-only sum the usage ingest adds.
	CreditsTotal float64
	// TransportType is the external channel's type; empty for a portal chat.
	TransportType string
}

// ChatUpdate is what one chat.message event says about its chat: nil (or a
// zero time) leaves the stored value.
type ChatUpdate struct {
	CreatedDate      time.Time
	ShortDesc        *string
	Effort           *string
	LLMModel         *string
	LLMResolvedModel *string
	Starred          *bool
	TransportType    *string
}

// Message is one chat message in the provider's native form: Format says
// how to read Body, which is JSON kept as it arrived.
type Message struct {
	Format    string
	Body      json.RawMessage
	MessageID string
	AppUserID string
	TS        time.Time
	// TokenMetadata is a JSON object, or nil.
	TokenMetadata  json.RawMessage
	SenderName     string
	SenderImageURL string
}

// Chat is a chat with its full history, oldest message first.
type Chat struct {
	ChatMeta
	Messages []Message
}

// LastActivity is the time of the newest message, or the creation time when
// there is none (docs/agent-data.md, Chats).
func (c Chat) LastActivity() time.Time {
	last := c.CreatedDate
	for _, m := range c.Messages {
		if m.TS.After(last) {
			last = m.TS
		}
	}
	return last
}

// SortMessages orders messages oldest first, then by message id.
func SortMessages(ms []Message) {
	slices.SortStableFunc(ms, func(a, b Message) int {
		if c := a.TS.Compare(b.TS); c != 0 {
			return c
		}
		switch {
		case a.MessageID < b.MessageID:
			return -1
		case a.MessageID > b.MessageID:
			return 1
		}
		return 0
	})
}

// DiaryEntry is one entry of an agent's diary.
type DiaryEntry struct {
	ID         string
	AgentID    string
	CustomerID string
	Timestamp  time.Time
	Type       string
	Title      string
	Details    string
	// ConversationID is empty for an entry without a conversation.
	ConversationID string
}

// DiaryDay is the number of diary entries of one UTC day.
type DiaryDay struct {
	Date  string // YYYY-MM-DD
	Count int
}

// DiaryMonthDays returns the days of the UTC month starting at month that
// have diary entries, ascending, with their counts (counts[d] is day d's).
func DiaryMonthDays(month time.Time, counts [32]float64) []DiaryDay {
	out := []DiaryDay{}
	for d := 1; d <= 31; d++ {
		if n := int(counts[d]); n > 0 {
			out = append(out, DiaryDay{Date: DayKey(month.AddDate(0, 0, d-1)), Count: n})
		}
	}
	return out
}

// MetricRecord is one record of a key metric.
type MetricRecord struct {
	ID         string
	Metric     string
	OccurredAt time.Time
	// Value is nil for a record without a value.
	Value *float64
	Ref   string
	Note  string
}

// PromotionRequestList returns the agent's promotion requests, never nil.
func (a Agent) PromotionRequestList() []PromotionRequest {
	if a.PromotionRequests == nil {
		return []PromotionRequest{}
	}
	return a.PromotionRequests
}
