package agentdata

import (
	"encoding/json"
	"net/http"

	"github.com/agentplatform/workspaceapi/shared/chatredact"
	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/wire"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// chatBody is GET .../chats/{chatId}; transport is absent on a portal chat.
type chatBody struct {
	ID               string             `json:"id"`
	AgentID          string             `json:"agentId"`
	CreatedDate      string             `json:"createdDate"`
	LastActivityDate string             `json:"lastActivityDate"`
	Starred          bool               `json:"starred"`
	ShortDesc        string             `json:"shortDesc"`
	Effort           string             `json:"effort"`
	LLMModel         string             `json:"llmModel"`
	LLMResolvedModel string             `json:"llmResolvedModel"`
	CreditsTotal     float64            `json:"creditsTotal"`
	Transport        *wire.Transport    `json:"transport,omitempty"`
	Messages         []wire.ChatMessage `json:"messages"`
}

// emptyObject is the tokenMetadata of a message that has none.
var emptyObject = json.RawMessage(`{}`)

// getChat handles GET .../chats/{chatId}: the chat and its whole history,
// oldest first, redacted on the way out (chatredact.MessageBody); the
// stored messages keep their native form. A chat of another agent is not
// found. A large answer is gzipped for clients that accept it (see
// httpapi.fitResponse and the OpenAPI document for the limit).
func getChat(store ChatStore) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		caller, a, err := readAgent(r, store, false)
		if err != nil {
			return err
		}
		chatID := r.PathValue("chatId")
		if !workspace.PlausibleID(chatID) {
			return workspace.NotFound("chat not found")
		}
		c, err := store.Chat(r.Context(), caller.WorkspaceID, a.ID, chatID)
		if err != nil {
			return err
		}
		httpapi.JSON(w, http.StatusOK, newChatBody(c))
		return nil
	}
}

// newChatBody is c as it leaves the service: message bodies and token
// metadata redacted, credentials removed from every other text a sender
// chose (a message's format, id and app user id included).
func newChatBody(c workspace.Chat) chatBody {
	red := chatredact.Text
	b := chatBody{
		ID: c.ID, AgentID: c.AgentID, CreatedDate: workspace.FormatTime(c.CreatedDate),
		LastActivityDate: workspace.FormatTime(c.LastActivity()), Starred: c.Starred,
		ShortDesc: red(c.ShortDesc), Effort: red(c.Effort), LLMModel: red(c.LLMModel), LLMResolvedModel: red(c.LLMResolvedModel),
		CreditsTotal: c.CreditsTotal, Messages: make([]wire.ChatMessage, len(c.Messages)),
	}
	if c.TransportType != "" {
		b.Transport = &wire.Transport{Type: red(c.TransportType)}
	}
	for i, m := range c.Messages {
		tm := chatredact.JSONObject(m.TokenMetadata)
		if len(tm) == 0 {
			tm = emptyObject
		}
		b.Messages[i] = wire.ChatMessage{
			Format: red(m.Format), Body: chatredact.MessageBody(m.Format, m.Body), MessageID: red(m.MessageID),
			AppUserID: red(m.AppUserID), TS: workspace.FormatTime(m.TS), TokenMetadata: tm,
			SenderName: red(m.SenderName), SenderImageURL: red(m.SenderImageURL),
		}
	}
	return b
}
