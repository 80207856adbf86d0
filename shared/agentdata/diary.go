package agentdata

import (
	"net/http"
	"time"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/wire"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// diaryEntry is a diary entry as GET .../diary answers it: the entry as an
// event brings it in, and the agent it belongs to, which an event carries
// in its head.
type diaryEntry struct {
	wire.DiaryEntry
	AgentID string `json:"agentId"`
}

type diaryDay struct {
	Date  string `json:"date"`
	Count int    `json:"count"`
}

type diaryMonth struct {
	Year  int        `json:"year"`
	Month int        `json:"month"`
	Days  []diaryDay `json:"days"`
}

var (
	errYearWithoutMonth = workspace.Invalid("give year and month together (the month-activity summary), or neither")
	errMonthAndDay      = workspace.Invalid("give year and month (the month-activity summary), or date or conversationId (entries), not both")
)

// diary handles GET .../diary: with year and month, the month-activity
// summary (one GetItem); with conversationId, that conversation's entries
// (date is then ignored); else the entries of date's UTC day (default
// today). Entries are oldest first.
func diary(store Store, clock workspace.Clock) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		year, yearSet, err := httpapi.QueryInt(r, "year", workspace.MinYear, workspace.MaxYear)
		var month int
		var monthSet, dateSet, convSet bool
		var date time.Time
		var conv string
		if err == nil {
			month, monthSet, err = httpapi.QueryInt(r, "month", 1, 12)
		}
		if err == nil {
			date, dateSet, err = httpapi.QueryTime(r, "date")
		}
		if err == nil {
			conv, convSet, err = httpapi.QueryString(r, "conversationId")
		}
		switch {
		case err != nil:
		case yearSet != monthSet:
			err = errYearWithoutMonth
		case yearSet && (dateSet || convSet):
			err = errMonthAndDay
		}
		if err != nil {
			return err
		}
		caller, a, err := readAgent(r, store, false)
		if err != nil {
			return err
		}
		ctx := r.Context()
		if yearSet {
			days, err := store.DiaryMonth(ctx, caller.WorkspaceID, a.ID, time.Date(year, time.Month(month), 1, 0, 0, 0, 0, time.UTC))
			if err != nil {
				return err
			}
			body := diaryMonth{Year: year, Month: month, Days: make([]diaryDay, len(days))}
			for i, d := range days {
				body.Days[i] = diaryDay{Date: d.Date, Count: d.Count}
			}
			httpapi.JSON(w, http.StatusOK, body)
			return nil
		}
		var entries []workspace.DiaryEntry
		switch {
		case convSet && !workspace.PlausibleID(conv):
			// No conversation has such an id: no entries.
		case convSet:
			entries, err = store.DiaryConversation(ctx, caller.WorkspaceID, a.ID, conv)
		default:
			if !dateSet {
				date = clock.Now()
			}
			entries, err = store.DiaryDay(ctx, caller.WorkspaceID, a.ID, date)
		}
		if err != nil {
			return err
		}
		out := make([]diaryEntry, len(entries))
		for i, e := range entries {
			out[i] = diaryEntry{AgentID: e.AgentID, DiaryEntry: wire.DiaryEntry{ID: e.ID, CustomerID: e.CustomerID,
				Timestamp: workspace.FormatTime(e.Timestamp), Type: e.Type, Title: e.Title, Details: e.Details,
				ConversationID: e.ConversationID}}
		}
		httpapi.JSON(w, http.StatusOK, map[string]any{"entries": out})
		return nil
	}
}
