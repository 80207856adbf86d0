package credits

import (
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

func TestCSVFieldsAreRFC4180AndNeverFormulas(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain text as it is", "Support Bot", "Support Bot"},
		{"empty", "", ""},
		{"a number as it is", "12.5", "12.5"},
		{"= starts a formula", "=SUM(A1:A9)", `"'=SUM(A1:A9)"`},
		{"+ starts a formula", "+1+2", `"'+1+2"`},
		{"- starts a formula", "-2+3", `"'-2+3"`},
		{"@ starts a formula", "@SUM(1)", `"'@SUM(1)"`},
		{"a tab may lead into one", "\t=1", "\"'\t=1\""},
		{"a carriage return may lead into one", "\r=1", "\"'\r=1\""},
		{"a formula with quotes and commas", `=HYPERLINK("http://x","y")`, `"'=HYPERLINK(""http://x"",""y"")"`},
		{"a formula sign inside is text", "a=b+c", "a=b+c"},
		{"a leading space is not a formula", " =1", " =1"},
		{"a comma is quoted", "Smith, Jane", `"Smith, Jane"`},
		{"a quote is doubled", `say "hi"`, `"say ""hi"""`},
		{"a line break is quoted", "line\nbreak", "\"line\nbreak\""},
		{"a CRLF is quoted", "line\r\nbreak", "\"line\r\nbreak\""},
		{"a quote at the start", `"quoted"`, `"""quoted"""`},
		{"non-ASCII as it is", "Ｃustomer Support ü", "Ｃustomer Support ü"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := csvField(tc.in)
			if got != tc.want {
				t.Fatalf("csvField(%q) = %q, want %q", tc.in, got, tc.want)
			}
			// Any RFC 4180 reader reads the field back: the text, behind
			// a quote when it would have been a formula.
			rec, err := csv.NewReader(strings.NewReader(got + ",x\r\n")).Read()
			want := tc.in
			if tc.in != "" && strings.ContainsRune(formulaStarts, rune(tc.in[0])) {
				want = "'" + tc.in
			}
			want = strings.ReplaceAll(want, "\r\n", "\n") // encoding/csv reads a quoted CRLF as LF
			if err != nil || len(rec) != 2 || rec[0] != want {
				t.Errorf("read back %q (%v), want %q", rec, err, want)
			}
		})
	}
}

func TestCSVRowsByGrouping(t *testing.T) {
	tests := []struct {
		name string
		by   workspace.ExportGroupBy
		row  workspace.ExportRow
		want string
	}{
		{"an agent with a team", workspace.GroupByAgent,
			workspace.ExportRow{Date: "2026-11-02", ID: "ag_1", Name: "Bot, the", TeamID: "team_a", Credits: 1.25},
			"2026-11-02,ag_1,\"Bot, the\",team_a,1.25\r\n"},
		{"an agent without a team", workspace.GroupByAgent,
			workspace.ExportRow{Date: "2026-11-02", ID: "-ag", Name: "+x", Credits: 3},
			"2026-11-02,\"'-ag\",\"'+x\",,3\r\n"},
		{"a team", workspace.GroupByTeam,
			workspace.ExportRow{Date: "2026-11-02", ID: "team_a", Name: "@team", Credits: 1e21},
			"2026-11-02,team_a,\"'@team\",1000000000000000000000\r\n"},
		{"small credits, no exponent", workspace.GroupByTeam,
			workspace.ExportRow{Date: "2026-11-02", ID: "t", Name: "T", Credits: 0.000001},
			"2026-11-02,t,T,0.000001\r\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(csvRow(tc.by, tc.row)); got != tc.want {
				t.Errorf("csvRow = %q, want %q", got, tc.want)
			}
		})
	}
}

// envelopeSize counts what Lambda's JSON encoding of the body adds.
func TestEnvelopeSizeIsTheEscapedLength(t *testing.T) {
	for _, s := range []string{"", "plain", `quote " and \ backslash`, "line\nbreak\r\ttab", "\x01\x1f", "<a&b>", "\u2028\u2029", "ü€😀"} {
		enc, _ := jsonString(s)
		if got, want := envelopeSize([]byte(s)), len(enc)-2; got != want {
			t.Errorf("envelopeSize(%q) = %d, want %d", s, got, want)
		}
	}
}

func jsonString(s string) ([]byte, error) { return json.Marshal(s) }
