package ingest

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentplatform/workspaceapi/shared/jsondoc"
	"github.com/agentplatform/workspaceapi/shared/wire"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// The ingest event types (docs/ingest-events.md).
const (
	TypeCreditsUsed    = "credits.used"
	TypeChatMessage    = "chat.message"
	TypeDiaryEntry     = "diary.entry"
	TypeMetricRecorded = "metric.recorded"
)

// Head is what every ingest event carries. Parse fills it as far as it could
// read it even when the event is invalid, so that a failure can be logged with
// its context; a field that is not a plausible id is left empty there.
type Head struct {
	Type        string
	ID          string
	WorkspaceID string
	AgentID     string
}

// Event is one decoded and validated ingest event: exactly one of the
// pointers, the one its Type names, is set (Provision for every
// provisioning type).
type Event struct {
	Head
	Usage     *workspace.Usage
	Chat      *ChatMessage
	Diary     *DiaryEntry
	Metric    *MetricRecord
	Provision *Provisioning
}

// ChatMessage is a chat.message event: one message of a chat, and the chat's
// own fields the platform sends along with it.
type ChatMessage struct {
	Head
	ChatID  string
	Chat    workspace.ChatUpdate
	Message workspace.Message
}

// DiaryEntry is a diary.entry event: one entry of the agent's diary.
type DiaryEntry struct {
	Head
	Entry workspace.DiaryEntry
}

// MetricRecord is a metric.recorded event: one record of the agent's key
// metric named Record.Metric. A record without a value (Record.Value nil)
// counts, but carries no figure (docs/agent-data.md, Key metrics).
type MetricRecord struct {
	Head
	Record workspace.MetricRecord
}

// wireHead is the JSON of Head, embedded (inlined) in each type's body.
type wireHead struct {
	Type        string `json:"type"`
	ID          string `json:"id"`
	WorkspaceID string `json:"workspaceId"`
	AgentID     string `json:"agentId"`
}

type wireCreditsUsed struct {
	wireHead
	Credits    *float64 `json:"credits"`
	OccurredAt *string  `json:"occurredAt"`
	ChatID     *string  `json:"chatId"`
}

type wireChatMessage struct {
	wireHead
	ChatID  string            `json:"chatId"`
	Chat    *wireChat         `json:"chat"`
	Message *wire.ChatMessage `json:"message"`
}

type wireChat struct {
	CreatedDate      *string         `json:"createdDate"`
	ShortDesc        *string         `json:"shortDesc"`
	Effort           *string         `json:"effort"`
	LLMModel         *string         `json:"llmModel"`
	LLMResolvedModel *string         `json:"llmResolvedModel"`
	Starred          *bool           `json:"starred"`
	Transport        *wire.Transport `json:"transport"`
}

type wireDiaryEntry struct {
	wireHead
	Entry *wire.DiaryEntry `json:"entry"`
}

type wireMetricRecorded struct {
	wireHead
	Metric string      `json:"metric"`
	Record *wireRecord `json:"record"`
}

type wireRecord struct {
	ID         string                      `json:"id"`
	OccurredAt string                      `json:"occurredAt"`
	Value      workspace.Nullable[float64] `json:"value"`
	Ref        string                      `json:"ref"`
	Note       string                      `json:"note"`
}

// Parse decodes and validates one ingest event (docs/ingest-events.md), without
// looking at storage or the clock: the body must be one JSON object whose
// members are exactly the fields of its type (an unknown field is an error
// naming it; null only for a metric record's value), ids are plausible
// (workspace.PlausibleID), other strings at most workspace.MaxStringLength
// characters, and times RFC 3339. Every error is a KindInvalid domain error
// whose message says which field is wrong and never repeats key-shaped text.
// The returned Event's Head holds what could be read even on failure.
func Parse(body []byte) (Event, error) {
	var members map[string]json.RawMessage
	if err := jsondoc.Unmarshal(body, &members); err != nil {
		return Event{}, decodeError(err)
	}
	var ev Event
	// The head, leniently, so that a failure can say which event it was.
	var head wireHead
	_ = json.Unmarshal(body, &head)
	ev.Head = plausibleHead(head)

	raw, ok := members["type"]
	if !ok {
		return ev, workspace.Invalid("type is required")
	}
	var typ string
	if json.Unmarshal(raw, &typ) != nil {
		return ev, workspace.Invalid("type must be a string")
	}
	var err error
	switch typ {
	case TypeCreditsUsed:
		var w wireCreditsUsed
		if err = decode(body, &w); err == nil {
			ev.Usage, err = w.usage()
		}
	case TypeChatMessage:
		var w wireChatMessage
		if err = decode(body, &w); err == nil {
			ev.Chat, err = w.chatMessage()
		}
	case TypeDiaryEntry:
		var w wireDiaryEntry
		if err = decode(body, &w); err == nil {
			ev.Diary, err = w.diaryEntry()
		}
	case TypeMetricRecorded:
		var w wireMetricRecorded
		if err = decode(body, &w); err == nil {
			ev.Metric, err = w.metricRecord()
		}
	default:
		if !slices.Contains(provisionTypes, typ) {
			return ev, workspace.Invalid("type must be one of %s", strings.Join(eventTypes(), ", "))
		}
		ev.Provision, err = parseProvision(body, typ)
		if err != nil {
			ev.Provision = nil
		}
	}
	return ev, err
}

// eventTypes lists every ingest event type.
func eventTypes() []string {
	return append([]string{TypeCreditsUsed, TypeChatMessage, TypeDiaryEntry, TypeMetricRecorded}, provisionTypes...)
}

// plausibleHead keeps the head fields that are safe and useful to log: a
// known type, and ids that are plausible.
func plausibleHead(w wireHead) Head {
	var h Head
	if slices.Contains(eventTypes(), w.Type) {
		h.Type = w.Type
	}
	if workspace.PlausibleID(w.ID) {
		h.ID = w.ID
	}
	if workspace.PlausibleID(w.WorkspaceID) {
		h.WorkspaceID = w.WorkspaceID
	}
	if workspace.PlausibleID(w.AgentID) {
		h.AgentID = w.AgentID
	}
	return h
}

// decode decodes body strictly into v: unknown fields and null are errors.
func decode(body []byte, v any) error {
	if err := jsondoc.Unmarshal(body, v, jsondoc.RejectNull()); err != nil {
		return decodeError(err)
	}
	return nil
}

// decodeError turns a decoding failure into a KindInvalid error; a
// key-shaped field name is not repeated.
func decodeError(err error) error {
	var e *jsondoc.Error
	if !errors.As(err, &e) {
		return err // a bug of the caller's (not a pointer)
	}
	if e.Kind == jsondoc.WrongType && e.Place == "" {
		return workspace.Invalid("an event must be a JSON object")
	}
	return workspace.Invalid("%s", workspace.RedactKeys(e.Error()))
}

// check validates the head every event carries.
func (w wireHead) check() error {
	for _, f := range []struct{ name, v string }{{"id", w.ID}, {"workspaceId", w.WorkspaceID}, {"agentId", w.AgentID}} {
		if err := checkID(f.name, f.v, true); err != nil {
			return err
		}
	}
	return nil
}

func (w wireHead) head() Head {
	return Head(w)
}

// checkID requires a plausible id when required is set, and accepts an empty
// one otherwise.
func checkID(field, id string, required bool) error {
	switch {
	case id == "" && required:
		return workspace.Invalid("%s is required", field)
	case id != "" && !workspace.PlausibleID(id):
		return workspace.Invalid("%s must be at most %d characters", field, workspace.MaxIDLength)
	}
	return nil
}

// checkText bounds a string that is not an id.
func checkText(field, s string, required bool) error {
	switch {
	case s == "" && required:
		return workspace.Invalid("%s is required", field)
	case utf8.RuneCountInString(s) > workspace.MaxStringLength:
		return workspace.Invalid("%s must be at most %d characters", field, workspace.MaxStringLength)
	}
	return nil
}

// maxTokenMetadataBytes bounds a message's tokenMetadata object as JSON.
const maxTokenMetadataBytes = 16 << 10

// checkLongText bounds a string that a rule allows to be longer than
// workspace.MaxStringLength (diary details, record notes: the OpenAPI
// document lists the bounds).
func checkLongText(field, s string, maxChars int) error {
	if utf8.RuneCountInString(s) > maxChars {
		return workspace.Invalid("%s must be at most %d characters", field, maxChars)
	}
	return nil
}

// checkOptionalText is checkText for a string that may be absent.
func checkOptionalText(field string, s *string) error {
	if s == nil {
		return nil
	}
	return checkText(field, *s, false)
}

// parseTime requires an RFC 3339 timestamp (any offset).
func parseTime(field, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, workspace.Invalid("%s is required (an RFC 3339 timestamp)", field)
	}
	return workspace.ParseTime(field, s)
}

func (w wireCreditsUsed) usage() (*workspace.Usage, error) {
	if err := w.check(); err != nil {
		return nil, err
	}
	if w.Credits == nil {
		return nil, workspace.Invalid("credits is required")
	}
	if err := workspace.CheckCredits("credits", *w.Credits, true); err != nil {
		return nil, err
	}
	if w.OccurredAt == nil {
		return nil, workspace.Invalid("occurredAt is required (an RFC 3339 timestamp)")
	}
	at, err := parseTime("occurredAt", *w.OccurredAt)
	if err != nil {
		return nil, err
	}
	u := &workspace.Usage{EventID: w.ID, WorkspaceID: w.WorkspaceID, AgentID: w.AgentID, Credits: workspace.UsageCredits(*w.Credits), OccurredAt: at}
	if w.ChatID != nil {
		// Given, it names a chat: an empty one is a mistake, not "no chat".
		if err := checkID("chatId", *w.ChatID, true); err != nil {
			return nil, err
		}
		u.ChatID = *w.ChatID
	}
	return u, nil
}

func (w wireChatMessage) chatMessage() (*ChatMessage, error) {
	if err := w.check(); err != nil {
		return nil, err
	}
	if err := checkID("chatId", w.ChatID, true); err != nil {
		return nil, err
	}
	m := &ChatMessage{Head: w.head(), ChatID: w.ChatID}
	if c := w.Chat; c != nil {
		if c.CreatedDate != nil {
			t, err := parseTime("chat.createdDate", *c.CreatedDate)
			if err != nil {
				return nil, err
			}
			m.Chat.CreatedDate = t
		}
		for _, f := range []struct {
			name string
			v    *string
		}{{"chat.shortDesc", c.ShortDesc}, {"chat.effort", c.Effort}, {"chat.llmModel", c.LLMModel}, {"chat.llmResolvedModel", c.LLMResolvedModel}} {
			if err := checkOptionalText(f.name, f.v); err != nil {
				return nil, err
			}
		}
		m.Chat.ShortDesc, m.Chat.Effort, m.Chat.LLMModel, m.Chat.LLMResolvedModel = c.ShortDesc, c.Effort, c.LLMModel, c.LLMResolvedModel
		m.Chat.Starred = c.Starred
		if c.Transport != nil {
			if err := checkText("chat.transport.type", c.Transport.Type, true); err != nil {
				return nil, err
			}
			m.Chat.TransportType = &c.Transport.Type
		}
	}
	msg := w.Message
	if msg == nil {
		return nil, workspace.Invalid("message is required")
	}
	if err := checkText("message.format", msg.Format, true); err != nil {
		return nil, err
	}
	if len(msg.Body) == 0 {
		return nil, workspace.Invalid("message.body is required (any JSON value)")
	}
	if len(msg.Body) > workspace.MaxMessageBodyBytes {
		return nil, workspace.Invalid("message.body must be at most %d bytes of JSON", workspace.MaxMessageBodyBytes)
	}
	if len(msg.TokenMetadata) > maxTokenMetadataBytes {
		return nil, workspace.Invalid("message.tokenMetadata must be at most %d bytes of JSON", maxTokenMetadataBytes)
	}
	if err := checkID("message.messageId", msg.MessageID, true); err != nil {
		return nil, err
	}
	if err := checkID("message.appUserId", msg.AppUserID, false); err != nil {
		return nil, err
	}
	ts, err := parseTime("message.ts", msg.TS)
	if err != nil {
		return nil, err
	}
	if len(msg.TokenMetadata) > 0 && !isObject(msg.TokenMetadata) {
		return nil, workspace.Invalid("message.tokenMetadata must be an object")
	}
	if err := checkText("message.senderName", msg.SenderName, false); err != nil {
		return nil, err
	}
	if err := checkText("message.senderImageUrl", msg.SenderImageURL, false); err != nil {
		return nil, err
	}
	m.Message = workspace.Message{
		Format: msg.Format, Body: msg.Body, MessageID: msg.MessageID, AppUserID: msg.AppUserID, TS: ts,
		TokenMetadata: msg.TokenMetadata, SenderName: msg.SenderName, SenderImageURL: msg.SenderImageURL,
	}
	return m, nil
}

// isObject reports whether raw, well-formed JSON, is an object.
func isObject(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s != "" && s[0] == '{'
}

func (w wireDiaryEntry) diaryEntry() (*DiaryEntry, error) {
	if err := w.check(); err != nil {
		return nil, err
	}
	e := w.Entry
	if e == nil {
		return nil, workspace.Invalid("entry is required")
	}
	for _, f := range []struct {
		name, v  string
		required bool
	}{{"entry.id", e.ID, true}, {"entry.customerId", e.CustomerID, false}, {"entry.conversationId", e.ConversationID, false}} {
		if err := checkID(f.name, f.v, f.required); err != nil {
			return nil, err
		}
	}
	at, err := parseTime("entry.timestamp", e.Timestamp)
	if err != nil {
		return nil, err
	}
	for _, f := range []struct{ name, v string }{{"entry.type", e.Type}, {"entry.title", e.Title}} {
		if err := checkText(f.name, f.v, false); err != nil {
			return nil, err
		}
	}
	if err := checkLongText("entry.details", e.Details, workspace.MaxDiaryDetailsLength); err != nil {
		return nil, err
	}
	return &DiaryEntry{Head: w.head(), Entry: workspace.DiaryEntry{
		ID: e.ID, AgentID: w.AgentID, CustomerID: e.CustomerID, Timestamp: at,
		Type: e.Type, Title: e.Title, Details: e.Details, ConversationID: e.ConversationID,
	}}, nil
}

func (w wireMetricRecorded) metricRecord() (*MetricRecord, error) {
	if err := w.check(); err != nil {
		return nil, err
	}
	if err := checkText("metric", w.Metric, true); err != nil {
		return nil, err
	}
	r := w.Record
	if r == nil {
		return nil, workspace.Invalid("record is required")
	}
	if err := checkID("record.id", r.ID, true); err != nil {
		return nil, err
	}
	at, err := parseTime("record.occurredAt", r.OccurredAt)
	if err != nil {
		return nil, err
	}
	if err := checkText("record.ref", r.Ref, false); err != nil {
		return nil, err
	}
	if err := checkLongText("record.note", r.Note, workspace.MaxMetricNoteLength); err != nil {
		return nil, err
	}
	rec := &MetricRecord{Head: w.head(), Record: workspace.MetricRecord{
		ID: r.ID, Metric: w.Metric, OccurredAt: at, Ref: r.Ref, Note: r.Note}}
	if v, ok := r.Value.Get(); ok {
		if err := workspace.CheckMetricValue("record.value", v); err != nil {
			return nil, err
		}
		v = workspace.RoundFigure(v)
		rec.Record.Value = &v
	}
	return rec, nil
}
