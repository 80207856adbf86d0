// Package repocheck_test holds checks of the repository as a whole, beyond
// any one package.
package repocheck_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// outsideDocs are the documents this service was first specified in, which
// live outside the repository. The rules it follows are written in docs/;
// nothing may point at those documents. The strings are split so that this
// file does not match itself.
var outsideDocs = []*regexp.Regexp{
	// "decisions" and a section sign, also when a comment wraps between them.
	regexp.MustCompile(`(?i)decisions[\s/#*'’]*` + "\u00a7"),
	regexp.MustCompile(`(?i)decisions` + `\.md`),
	regexp.MustCompile(`(?i)workspace-api` + `\.md`),
}

// absoluteOutside are absolute paths of the machine the repository was
// first written on.
var absoluteOutside = []string{"/" + "work/"}

// pathToken is a path-like run of text; one that starts with "../" is a
// relative path, resolved against the file's directory.
var pathToken = regexp.MustCompile(`[\w.\-/]+`)

// problems returns what in data, the content of the file at rel (a path
// relative to the repository root, slash-separated), refers outside the
// repository: the outside documents, absolute paths of the first machine,
// and relative paths that climb out of the repository.
func problems(rel string, data []byte) []string {
	var out []string
	text := string(data)
	line := func(offset int) int { return 1 + strings.Count(text[:offset], "\n") }
	for _, re := range outsideDocs {
		for _, loc := range re.FindAllStringIndex(text, -1) {
			out = append(out, fmt.Sprintf("%s:%d: refers to a document outside the repository (%q); point to docs/ instead",
				rel, line(loc[0]), text[loc[0]:loc[1]]))
		}
	}
	for _, abs := range absoluteOutside {
		for i := 0; ; {
			j := strings.Index(text[i:], abs)
			if j < 0 {
				break
			}
			out = append(out, fmt.Sprintf("%s:%d: refers to an absolute path outside the repository (%s...)", rel, line(i+j), abs))
			i += j + len(abs)
		}
	}
	dir := filepath.Dir(filepath.FromSlash(rel))
	for _, loc := range pathToken.FindAllStringIndex(text, -1) {
		tok := text[loc[0]:loc[1]]
		if tok != ".." && !strings.HasPrefix(tok, "../") {
			continue
		}
		if r := filepath.ToSlash(filepath.Join(dir, filepath.FromSlash(tok))); r == ".." || strings.HasPrefix(r, "../") {
			out = append(out, fmt.Sprintf("%s:%d: the relative path %q leads outside the repository", rel, line(loc[0]), tok))
		}
	}
	return out
}

// TestNoFileRefersOutsideTheRepository reads every tracked text file and
// fails on any reference to a document or a path outside the repository,
// so that the repository stands alone.
func TestNoFileRefersOutsideTheRepository(t *testing.T) {
	root, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Fatalf("the check needs the repository's git work tree: %v", err)
	}
	top := strings.TrimSpace(string(root))
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = top
	list, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	checked := 0
	for _, rel := range strings.Split(strings.TrimRight(string(list), "\x00"), "\x00") {
		if rel == "" || slices.Contains(strings.Split(rel, "/"), "node_modules") {
			continue
		}
		path := filepath.Join(top, filepath.FromSlash(rel))
		info, err := os.Lstat(path)
		if os.IsNotExist(err) {
			continue // deleted in the work tree, not yet in the index
		}
		if err != nil {
			t.Fatal(err)
		}
		if !info.Mode().IsRegular() {
			continue // a symbolic link or a submodule: not text of this repository
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0 {
			continue // binary
		}
		checked++
		for _, p := range problems(rel, data) {
			t.Error(p)
		}
	}
	if checked < 50 {
		t.Fatalf("checked only %d files: git ls-files did not list the repository", checked)
	}
}

// The check itself: what it must find and what it must let pass.
func TestProblemsFindsOutsideReferences(t *testing.T) {
	sect := "\u00a7"
	for _, c := range []struct {
		rel, text string
		want      bool
	}{
		{"shared/x/x.go", "// the rule (decisions " + sect + "11).", true},
		{"shared/x/x.go", "// the format of decisions\n// " + sect + "8: workspaces", true},
		{"README.md", "see decisions" + ".md", true},
		{"README.md", "the API in workspace-api" + ".md", true},
		{"README.md", "read " + "/" + "work/shared/spec", true},
		{"README.md", "[spec](" + ".." + "/shared/spec/x.md)", true},
		{"docs/a.md", "[x](" + ".." + "/" + ".." + "/outside.md)", true},
		{"docs/a.md", "[openapi](../infra/apispec/openapi.yaml)", false},
		{"infra/cmd/wsadmin/main_test.go", `const demo = "` + ".." + "/" + ".." + `/fixtures/demo.json"`, false},
		{"infra/apispec/t_test.go", `repoRoot = "../.."`, false},
		{"README.md", "`GET .../key-metrics` (docs/bounds.md, Ids)", false},
	} {
		if got := len(problems(c.rel, []byte(c.text))) > 0; got != c.want {
			t.Errorf("problems(%q, %q) found something: %t, want %t", c.rel, c.text, got, c.want)
		}
	}
}
