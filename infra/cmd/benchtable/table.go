package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"
)

// row is one line of the table.
type row struct {
	id      string // what -only takes to run this row alone
	measure string
	subject string // the function or endpoint
	value   string // what was measured
	against string // what it is compared with
	target  string
	met     string // "yes", "no", or "" for a row without a target
}

// printTable writes the rows as one markdown table; flags are the
// non-default flags of this run, repeated in each row's command.
func printTable(out io.Writer, rows []row, flags string) {
	fmt.Fprintln(out, "| measure | function / endpoint | measured | compared with | target | met | reproduce with |")
	fmt.Fprintln(out, "|---|---|---|---|---|---|---|")
	for _, r := range rows {
		cmd := "make bench ONLY='" + r.id + "'"
		if flags != "" {
			cmd += " BENCH_FLAGS='" + flags + "'"
		}
		fmt.Fprintf(out, "| %s | %s | %s | %s | %s | %s | `%s` |\n",
			cell(r.measure), cell(r.subject), cell(r.value), cell(r.against), cell(r.target), cell(r.met), cmd)
	}
}

// cell escapes what would break a markdown table cell.
func cell(s string) string {
	if s == "" {
		return "-"
	}
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// met renders whether a target was met.
func met(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}

// ms renders a duration in milliseconds.
func ms(d time.Duration) string {
	v := float64(d) / float64(time.Millisecond)
	switch {
	case v >= 10_000:
		return fmt.Sprintf("%.1f s", v/1000)
	case v >= 100:
		return fmt.Sprintf("%.0f ms", v)
	case v >= 10:
		return fmt.Sprintf("%.1f ms", v)
	default:
		return fmt.Sprintf("%.2f ms", v)
	}
}

// ratio renders a/b.
func ratio(a, b time.Duration) float64 {
	if b <= 0 {
		return math.Inf(1)
	}
	return float64(a) / float64(b)
}

// median returns the middle of ds (the lower of the two middles).
func median(ds []time.Duration) time.Duration { return percentile(ds, 50) }

// percentile returns the nearest-rank p-th percentile of ds.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}

// mb renders bytes in MB (10^6 bytes).
func mb(n int64) string { return fmt.Sprintf("%.2f MB", float64(n)/1e6) }

// opsSummary renders a sequence of operations compactly, in order, runs of
// one operation counted: "Query, BatchGetItem ×2".
func opsSummary(ops []string) string {
	if len(ops) == 0 {
		return "no call"
	}
	var parts []string
	for i := 0; i < len(ops); {
		j := i
		for j < len(ops) && ops[j] == ops[i] {
			j++
		}
		if j-i > 1 {
			parts = append(parts, fmt.Sprintf("%s ×%d", ops[i], j-i))
		} else {
			parts = append(parts, ops[i])
		}
		i = j
	}
	return strings.Join(parts, ", ")
}
