package credits

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// The usage export's two wire forms: CSV (RFC 4180, for spreadsheets) and
// JSON, with the same fields. Rows are encoded one at a time so that a page
// stops before its answer outgrows what Lambda may return (exportBodyBudget).

// CSV header rows of the two groupings.
var csvHeaders = map[workspace.ExportGroupBy][]string{
	workspace.GroupByAgent: {"date", "agentId", "agentName", "teamId", "credits"},
	workspace.GroupByTeam:  {"date", "teamId", "teamName", "credits"},
}

// formulaStarts are the first characters with which a spreadsheet reads a
// cell as a formula (=, +, -, @) or may be led into one (tab, carriage
// return): the CSV injection characters of OWASP's guidance.
const formulaStarts = "=+-@\t\r"

// csvField encodes one CSV field. A field that a spreadsheet would run as a
// formula gets a single quote in front and is quoted: "'=1+1" reads as the
// text =1+1 in Excel, LibreOffice and Google Sheets, never as a formula. A
// field holding a comma, a double quote or a line break is quoted, its double
// quotes doubled (RFC 4180). Anything else is written as it is.
func csvField(s string) string {
	formula := s != "" && strings.IndexByte(formulaStarts, s[0]) >= 0
	if formula {
		s = "'" + s
	}
	if formula || strings.ContainsAny(s, ",\"\r\n") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

// csvRecord encodes one CSV record, CRLF-terminated (RFC 4180).
func csvRecord(fields ...string) []byte {
	var b strings.Builder
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(csvField(f))
	}
	b.WriteString("\r\n")
	return []byte(b.String())
}

// creditsText writes a credit figure as JSON would, but never in exponent
// form, which some spreadsheets read as text.
func creditsText(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// csvRow encodes an export row as a CSV record of grouping by.
func csvRow(by workspace.ExportGroupBy, r workspace.ExportRow) []byte {
	if by == workspace.GroupByTeam {
		return csvRecord(r.Date, r.ID, r.Name, creditsText(r.Credits))
	}
	return csvRecord(r.Date, r.ID, r.Name, r.TeamID, creditsText(r.Credits))
}

// agentRow and teamRow are the JSON forms of an export row.
type agentRow struct {
	Date      string  `json:"date"`
	AgentID   string  `json:"agentId"`
	AgentName string  `json:"agentName"`
	TeamID    *string `json:"teamId"`
	Credits   float64 `json:"credits"`
}

type teamRow struct {
	Date     string  `json:"date"`
	TeamID   string  `json:"teamId"`
	TeamName string  `json:"teamName"`
	Credits  float64 `json:"credits"`
}

// jsonRow encodes an export row as a JSON object of grouping by.
func jsonRow(by workspace.ExportGroupBy, r workspace.ExportRow) ([]byte, error) {
	if by == workspace.GroupByTeam {
		return json.Marshal(teamRow{Date: r.Date, TeamID: r.ID, TeamName: r.Name, Credits: r.Credits})
	}
	row := agentRow{Date: r.Date, AgentID: r.ID, AgentName: r.Name, Credits: r.Credits}
	if r.TeamID != "" {
		team := r.TeamID
		row.TeamID = &team
	}
	return json.Marshal(row)
}

// envelopeSize is what b adds to Lambda's response payload, which carries
// the body as a JSON string: quotes, backslashes and control characters
// count escaped.
func envelopeSize(b []byte) int {
	// encoding/json writes U+2028 and U+2029 (3 bytes each) as \u2028, \u2029.
	n := len(b) + 3*(bytes.Count(b, []byte("\u2028"))+bytes.Count(b, []byte("\u2029")))
	for _, c := range b {
		switch {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
			n++
		case c < 0x20:
			n += 5 // \u00XX
		case c == '<' || c == '>' || c == '&':
			n += 5 // encoding/json writes these as \u003c and so on
		}
	}
	return n
}
