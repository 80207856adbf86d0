package agentdata

import (
	"net/http"
	"time"

	"github.com/agentplatform/workspaceapi/shared/httpapi"
	"github.com/agentplatform/workspaceapi/shared/workspace"
)

type keyMetricsResponse struct {
	AgentID   string         `json:"agentId"`
	AgentName string         `json:"agentName"`
	Period    periodBody     `json:"period"`
	Metrics   []metricReport `json:"metrics"`
}

type periodBody struct {
	StartDate string `json:"startDate"`
	EndDate   string `json:"endDate"`
}

// metricReport is one metric of the report; aggregate, previousAggregate
// and lastRecordedAt are null when there is nothing to report.
type metricReport struct {
	Name              string       `json:"name"`
	Description       string       `json:"description"`
	Count             int          `json:"count"`
	TotalCount        int          `json:"totalCount"`
	ValueCount        int          `json:"valueCount"`
	PreviousCount     int          `json:"previousCount"`
	Aggregate         *float64     `json:"aggregate"`
	PreviousAggregate *float64     `json:"previousAggregate"`
	LastRecordedAt    *string      `json:"lastRecordedAt"`
	Measurement       Measurement  `json:"measurement"`
	Recent            []recordBody `json:"recent"`
}

// recordBody is a record; value is absent on a record without one.
type recordBody struct {
	ID         string   `json:"id"`
	OccurredAt string   `json:"occurredAt"`
	Value      *float64 `json:"value,omitempty"`
	Ref        string   `json:"ref"`
	Note       string   `json:"note"`
}

// keyMetrics handles GET .../key-metrics: the query is checked first
// (days 1–365, startDate/endDate ISO, recent 0–500, start not after end),
// then the agent is read, then its metrics (Store.KeyMetrics: O(days)).
func keyMetrics(store Store, clock workspace.Clock) httpapi.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		var q workspace.MetricPeriodQuery
		days, set, err := httpapi.QueryInt(r, "days", workspace.MinMetricDays, workspace.MaxMetricDays)
		if err == nil && set {
			q.Days = &days
		}
		var start, end time.Time
		if err == nil {
			if start, set, err = httpapi.QueryTime(r, "startDate"); err == nil && set {
				q.StartDate = &start
			}
		}
		if err == nil {
			if end, set, err = httpapi.QueryTime(r, "endDate"); err == nil && set {
				q.EndDate = &end
			}
		}
		recent := 0
		if err == nil {
			recent, _, err = httpapi.QueryInt(r, "recent", 0, workspace.MaxMetricRecent)
		}
		var p workspace.Period
		if err == nil {
			p, err = workspace.MetricPeriod(q, clock.Now())
		}
		if err != nil {
			return err
		}
		caller, a, err := readAgent(r, store, false)
		if err != nil {
			return err
		}
		rep, err := store.KeyMetrics(r.Context(), caller.WorkspaceID, a, p, recent)
		if err != nil {
			return err
		}
		body := keyMetricsResponse{AgentID: rep.AgentID, AgentName: rep.AgentName,
			Period:  periodBody{StartDate: workspace.FormatTime(p.Start), EndDate: workspace.FormatTime(p.End)},
			Metrics: []metricReport{}}
		for _, f := range rep.Metrics {
			m := metricReport{
				Name: f.Definition.Name, Description: f.Definition.Description,
				Count: f.Current.Count, TotalCount: f.TotalCount, ValueCount: f.Current.ValueCount, PreviousCount: f.Previous.Count,
				Aggregate:         workspace.Aggregate(f.Definition.Measurement.Aggregation, f.Current),
				PreviousAggregate: workspace.Aggregate(f.Definition.Measurement.Aggregation, f.Previous),
				Measurement:       Measurement{Unit: f.Definition.Measurement.Unit, Aggregation: f.Definition.Measurement.Aggregation},
				Recent:            []recordBody{},
			}
			if !f.LastRecordedAt.IsZero() {
				at := workspace.FormatTime(f.LastRecordedAt)
				m.LastRecordedAt = &at
			}
			for _, rec := range f.Recent {
				m.Recent = append(m.Recent, recordBody{ID: rec.ID, OccurredAt: workspace.FormatTime(rec.OccurredAt), Value: rec.Value, Ref: rec.Ref, Note: rec.Note})
			}
			body.Metrics = append(body.Metrics, m)
		}
		httpapi.JSON(w, http.StatusOK, body)
		return nil
	}
}
