package apispec_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestEveryErrorExampleIsAMessageTheServiceSends holds the document's error
// examples to the service's own words: each is a message a string of the
// shipped code (shared/) or a gateway response of template.yaml spells,
// word for word, a format string's verbs standing for any value. An example
// that drifts from what the service answers is caught here, not by a reader.
func TestEveryErrorExampleIsAMessageTheServiceSends(t *testing.T) {
	root := filepath.Join("..", "..")
	var literals []string
	err := filepath.WalkDir(filepath.Join(root, "shared"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if s, ok := stringConstant(n); ok {
				literals = append(literals, s)
				return false // a sum's parts are not messages of their own
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	template, err := os.ReadFile(filepath.Join(root, "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var patterns []*regexp.Regexp
	verb := regexp.MustCompile(`%[-+# 0]*[0-9.]*[a-zA-Z]`)
	for _, l := range literals {
		if len(verb.ReplaceAllString(l, "")) >= 12 { // words enough to be a message, not a format like "%s: %w"
			patterns = append(patterns, formatPattern(l))
		}
	}
	sends := func(msg string) bool {
		if strings.Contains(string(template), `{"error": "`+msg+`"}`) {
			return true
		}
		for _, p := range patterns {
			if p.MatchString(msg) {
				return true
			}
		}
		return false
	}

	text, err := os.ReadFile(filepath.Join("openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := yaml.Unmarshal(text, &doc); err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, ex := range errorExamples(doc, nil) {
		if !sends(ex) {
			missing = append(missing, ex)
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("an error example the service never sends: %q", m)
	}
}

// formatPattern matches what a string may become: itself, its fmt verbs
// standing for any text, or its start when the code appends more to it.
func formatPattern(s string) *regexp.Regexp {
	verb := regexp.MustCompile(`%[-+# 0]*[0-9.]*[a-zA-Z]`)
	var b strings.Builder
	b.WriteString("^")
	last := 0
	for _, m := range verb.FindAllStringIndex(s, -1) {
		b.WriteString(regexp.QuoteMeta(s[last:m[0]]))
		b.WriteString(".+")
		last = m[1]
	}
	b.WriteString(regexp.QuoteMeta(s[last:]))
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// errorExamples returns the value of every "error" field of an example in
// the document: the examples of every error response.
func errorExamples(node any, path []string) []string {
	var out []string
	switch n := node.(type) {
	case map[string]any:
		for k, v := range n {
			if s, ok := v.(string); ok && k == "error" && slices.Contains(path, "examples") {
				out = append(out, s)
				continue
			}
			out = append(out, errorExamples(v, append(path, k))...)
		}
	case []any:
		for _, v := range n {
			out = append(out, errorExamples(v, path)...)
		}
	}
	return out
}

// stringConstant returns the string n spells: a literal, or a sum of
// literals, as a long message is written over several lines.
func stringConstant(n ast.Node) (string, bool) {
	switch e := n.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return "", false
		}
		x, ok := stringConstant(e.X)
		if !ok {
			return "", false
		}
		y, ok := stringConstant(e.Y)
		return x + y, ok
	case *ast.ParenExpr:
		return stringConstant(e.X)
	}
	return "", false
}
