package chatredact

import (
	"encoding/base64"
	"encoding/hex"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// Text redaction: what a string that is not JSON (or the text around JSON)
// goes through. Detectors mark the spans that hold a credential, and each
// span becomes RedactedValue:
//   - the rules (rules.go): gitleaks' rule set and this package's own;
//   - name=value pairs (pairs.go): credential names followed by '=', ':',
//     "is", a command-line flag's space, an XML tag...;
//   - passwords in URLs and user:password@host (userinfo);
//   - "Basic" followed by base64 of user:password (basicAuth);
//   - base64 or hex text that decodes to text holding a credential
//     (base64Runs, hexRuns).
//
// Every detector is a single pass, or RE2 regular expressions (linear in
// time) run on windows around keywords that one scan of the text finds
// (redactText), within a budget (runRule): the cost is linear in the text's
// length.

// keyword kinds: what a keyword found in a text calls for.
const (
	kindRule    = iota // a rule's keyword: the rule runs
	kindName           // part of a credential name: the pair parser looks here
	kindBasic          // "basic": the Basic credential check looks here
	kindCommand        // a command's name: the command line is read (cli.go)
	kindJWK            // a JSON Web Key's private member in text ("d": ...)
)

// hit is one keyword of the index.
type hit struct {
	word string
	kind int
	rule int // index in keywordIndex.rules, kindRule only
}

// keywordIndex finds keywords of at least two bytes in any case: a table
// by their first two bytes (lower case) rejects most positions at once.
type keywordIndex struct {
	bucket  [1 << 16]uint16 // by a keyword's first two bytes: its bucket, 0 for none
	buckets [][]hit
	rules   []*rule
}

var (
	indexOnce sync.Once
	index     *keywordIndex
)

// theIndex builds the keyword index once, on first use.
func theIndex() *keywordIndex {
	indexOnce.Do(func() {
		ix := &keywordIndex{buckets: [][]hit{nil}}
		add := func(h hit) {
			if len(h.word) < 2 {
				panic("chatredact: keyword shorter than two bytes: " + h.word)
			}
			k := uint16(lower(h.word[0]))<<8 | uint16(lower(h.word[1]))
			if ix.bucket[k] == 0 {
				ix.bucket[k] = uint16(len(ix.buckets))
				ix.buckets = append(ix.buckets, nil)
			}
			ix.buckets[ix.bucket[k]] = append(ix.buckets[ix.bucket[k]], h)
		}
		// This package's rules first: they run first, before any budget
		// runs out (runRule).
		for i := range ownRules {
			ix.rules = append(ix.rules, &ownRules[i])
		}
		for i := range gitleaksRules {
			ix.rules = append(ix.rules, &gitleaksRules[i])
		}
		if len(ix.rules) > maxRules {
			panic("chatredact: more rules than maxRules")
		}
		for i, r := range ix.rules {
			for _, k := range r.keywords {
				add(hit{word: k, kind: kindRule, rule: i})
			}
		}
		for _, k := range nameKeywords {
			add(hit{word: k, kind: kindName})
		}
		add(hit{word: "basic", kind: kindBasic})
		for _, k := range commandKeywords {
			add(hit{word: k, kind: kindCommand})
		}
		for _, k := range jwkKeywords {
			add(hit{word: k, kind: kindJWK})
		}
		index = ix
	})
	return index
}

// span is a part of a text to hide, [start, end).
type span struct{ start, end int }

// textScan is one text's redaction in progress.
type textScan struct {
	s      string
	depth  int
	spans  []span
	budget int // bytes the rules may still scan (runRule)
}

// The rules' budget for one text: the bytes of windows they may scan, a
// multiple of the text's length. A chat full of credentials has its rules
// scan about four times its length (windows start at their keyword and
// hits with no assignment after a generic rule's keyword are dropped:
// window.go); text made to hold every rule's keyword everywhere, some
// thirty times. Past the budget, a keyword's surroundings are hidden
// without running its rule: redaction stays linear in time and fails
// closed.
const (
	budgetPerByte = 8
	budgetBase    = 1 << 10
)

func (t *textScan) mark(start, end int) {
	if start < end {
		t.spans = append(t.spans, span{start, end})
	}
}

// redactText returns s with every credential the detectors find replaced by
// RedactedValue; depth is the nesting of s in JSON or base64 (see
// redactString).
func redactText(s string, depth int) string {
	if len(s) < 4 {
		return s
	}
	t := &textScan{s: s, depth: depth, budget: budgetBase + budgetPerByte*len(s)}
	ix := theIndex()
	ruleHits := make([]ruleHit, 0, min(len(s)/32+8, 1<<14))
	nameFrom := 0 // the pair parser has looked at s[:nameFrom]
	cmdFrom := 0  // the command lines in s[:cmdFrom] are read
	for i := 0; i+1 < len(s); i++ {
		b := ix.bucket[uint16(lower(s[i]))<<8|uint16(lower(s[i+1]))]
		if b == 0 {
			continue
		}
		for _, h := range ix.buckets[b] {
			if !hasPrefixFold(s[i:], h.word) {
				continue
			}
			switch h.kind {
			case kindRule:
				ruleHits = append(ruleHits, ruleHit{rule: uint16(h.rule), at: int32(i), n: uint16(len(h.word))})
			case kindName:
				if i >= nameFrom {
					nameFrom = t.pairAt(i, len(h.word))
				}
			case kindBasic:
				t.basicAuth(i)
			case kindCommand:
				if i >= cmdFrom {
					cmdFrom = t.commandAt(i, i+len(h.word))
				}
			case kindJWK:
				t.jwkMember(i, len(h.word))
			}
		}
	}
	if len(ruleHits) > 0 {
		ruleHits = byRule(ruleHits)
		for i := 0; i < len(ruleHits); {
			j := i + 1
			for j < len(ruleHits) && ruleHits[j].rule == ruleHits[i].rule {
				j++
			}
			t.runRule(ix.rules[ruleHits[i].rule], ruleHits[i:j])
			i = j
		}
	}
	if strings.IndexByte(s, '@') >= 0 {
		t.userinfo()
		t.urlPasswords()
	}
	if strings.IndexByte(s, ':') >= 0 {
		t.pgpassLines()
	}
	t.base64Runs()
	t.hexRuns()
	t.escapeRuns()
	if len(t.spans) == 0 {
		return s
	}
	return t.apply()
}

// hasPrefixFold reports whether s begins with word (lower case) in any case.
func hasPrefixFold(s, word string) bool {
	if len(s) < len(word) {
		return false
	}
	for j := 0; j < len(word); j++ {
		if lower(s[j]) != word[j] {
			return false
		}
	}
	return true
}

// ruleHit is a rule's keyword found in a text, s[at:at+n]: eight bytes,
// since a text full of keywords holds a hit every few bytes.
type ruleHit struct {
	at      int32
	rule, n uint16
}

func (h ruleHit) start() int { return int(h.at) }
func (h ruleHit) end() int   { return int(h.at) + int(h.n) }

// maxRules bounds the rules (ruleHit.rule, byRule's counts).
const maxRules = 1 << 9

// byRule returns hits grouped by rule, in text order within a rule: a
// counting sort, linear (a few hits are sorted in place).
func byRule(hits []ruleHit) []ruleHit {
	if len(hits) < 32 {
		for i := 1; i < len(hits); i++ {
			for j := i; j > 0 && hits[j-1].rule > hits[j].rule; j-- {
				hits[j-1], hits[j] = hits[j], hits[j-1]
			}
		}
		return hits
	}
	var at [maxRules + 1]int32
	for _, h := range hits {
		at[h.rule+1]++
	}
	for i := 1; i < len(at); i++ {
		at[i] += at[i-1]
	}
	out := make([]ruleHit, len(hits))
	for _, h := range hits {
		out[at[h.rule]] = h
		at[h.rule]++
	}
	return out
}

// unboundedReach is how far around its keyword a rule of unbounded length
// is run at first (at least twice its shortest match); a match that
// reaches the end of its window grows it.
const unboundedReach = 256

// runRule marks the secrets r finds around its keywords' hits (in text
// order): r runs on windows reaching as far before and after each keyword
// as its longest match, merged, not on the whole text, so a rule whose
// keyword is common (gitleaks' "sk", "ey") costs little on long prose. A
// match that ends at its window's end may be cut short: the window grows
// (doubling) until it does not.
func (t *textScan) runRule(r *rule, hits []ruleHit) {
	re := r.compiled()
	s := t.s
	if r.assign != nil || r.follow != nil {
		// Hits that begin no match: no assignment after a generic rule's
		// keyword, or text after a keyword that no match's prefix allows.
		kept := hits[:0]
		for _, h := range hits {
			if (r.assign == nil || !needsAssign(r.assign, s, h) || assignFollows(s, h.end())) &&
				(r.follow == nil || followsFit(r.follow, s, h.start(), h.end())) {
				kept = append(kept, h)
			}
		}
		if hits = kept; len(hits) == 0 {
			return
		}
	}
	reach := r.maxLen
	if reach < 0 {
		reach = max(unboundedReach, 2*r.minLen+16)
	}
	reach += 2
	// A window reaches back as far as a match may begin before its keyword
	// (one byte more for \b), and on as far as the match may end.
	back, on := reach, func(h ruleHit) int { return h.end() + reach }
	if r.before >= 0 {
		back = r.before + 1
		on = func(h ruleHit) int { return h.start() + reach }
	}
	for i := 0; i < len(hits); {
		first := i
		lo, hi := max(0, hits[i].start()-back), min(len(s), on(hits[i]))
		for i++; i < len(hits) && hits[i].start()-back <= hi; i++ {
			hi = min(len(s), max(hi, on(hits[i])))
		}
		if t.budget < hi-lo {
			for _, h := range hits[first:i] {
				t.markAround(h)
			}
			continue
		}
		for {
			t.budget -= hi - lo
			ms := re.FindAllStringSubmatchIndex(s[lo:hi], -1)
			if hi < len(s) && len(ms) > 0 && ms[len(ms)-1][1] == hi-lo {
				hi = min(len(s), hi+(hi-lo))
				for i < len(hits) && hits[i].start()-back <= hi {
					hi = min(len(s), max(hi, on(hits[i])))
					i++
				}
				continue
			}
			for _, m := range ms {
				t.markMatch(r, m, lo)
			}
			break
		}
	}
}

// needsAssign reports whether the hit h is of one of keywords.
func needsAssign(keywords []string, s string, h ruleHit) bool {
	for _, k := range keywords {
		if len(k) == int(h.n) && hasPrefixFold(s[h.start():], k) {
			return true
		}
	}
	return false
}

// markAround marks, in place of a rule the budget leaves no room for, the
// word holding a keyword and what follows it up to the next word after a
// separator (KEYWORD_TOKEN = value, sk_live_...).
func (t *textScan) markAround(h ruleHit) {
	s := t.s
	start := h.start()
	for start > 0 && h.start()-start < 64 && !isSpace(s[start-1]) {
		start--
	}
	end := h.end()
	for end < len(s) && end-h.start() < 256 && !isSpace(s[end]) {
		end++
	}
	k := end
	for k < len(s) && k-end < 8 && (isSpace(s[k]) || strings.IndexByte("=:>'\"`,", s[k]) >= 0) {
		k++
	}
	if k > end && k < len(s) && strings.ContainsAny(s[end:k], "=:>") {
		for end = k; end < len(s) && end-k < 256 && !isSpace(s[end]); end++ {
		}
	}
	t.mark(start, end)
}

// markMatch marks the secret of one match m of r found at offset off.
func (t *textScan) markMatch(r *rule, m []int, off int) {
	start, end := m[0], m[1]
	switch {
	case r.group > 0 && 2*r.group+1 < len(m):
		start, end = m[2*r.group], m[2*r.group+1]
	case r.group == 0:
		for g := 1; 2*g+1 < len(m); g++ {
			if m[2*g] >= 0 && m[2*g+1] > m[2*g] {
				start, end = m[2*g], m[2*g+1]
				break
			}
		}
	}
	if start >= 0 {
		t.mark(off+start, off+end)
	}
}

// apply writes s with its spans replaced, overlapping spans merged.
func (t *textScan) apply() string {
	slices.SortFunc(t.spans, func(a, b span) int { return a.start - b.start })
	var b strings.Builder
	b.Grow(len(t.s))
	last := 0
	for i := 0; i < len(t.spans); {
		start, end := t.spans[i].start, t.spans[i].end
		for i++; i < len(t.spans) && t.spans[i].start <= end; i++ {
			end = max(end, t.spans[i].end)
		}
		if start < last {
			start = last
		}
		b.WriteString(t.s[last:start])
		b.WriteString(RedactedValue)
		last = end
	}
	b.WriteString(t.s[last:])
	return b.String()
}

// basicAuth marks the credential after "Basic" at i when it decodes to
// user:password (prose such as "basic plan" stays).
func (t *textScan) basicAuth(i int) {
	s := t.s
	if i > 0 && isAlnum(s[i-1]) {
		return
	}
	j := i + len("basic")
	k := blanksEnd(s, j)
	if k == j {
		return
	}
	end := k
	for end < len(s) && isBase64Char(s[end]) {
		end++
	}
	for end < len(s) && s[end] == '=' {
		end++
	}
	if end-k < 4 {
		return
	}
	if dec, ok := decodeBase64(s[k:end]); ok && strings.IndexByte(dec, ':') >= 0 {
		t.mark(k, end)
	}
}

// userinfo marks passwords in URLs and in user:password@host: at each '@',
// what follows the last ':' before it (up to a space, a quote or '/') is a
// password; the user stays. A URL's user alone (https://TOKEN@host) is
// hidden when it is 16 characters or more, as a token used as a user is.
func (t *textScan) userinfo() {
	s := t.s
	prev := userinfoScan{at: -1, colon: -1}
	for at := strings.IndexByte(s, '@'); at >= 0; {
		cur := t.userinfoAt(at, prev)
		if at+1 < len(s) && (isAlnum(s[at+1]) || s[at+1] == '[') {
			t.userinfoMark(at, cur)
		}
		prev = cur
		next := strings.IndexByte(s[at+1:], '@')
		if next < 0 {
			break
		}
		at += 1 + next
	}
}

// userinfoScan is what the scan left of one '@' found: the ':' before it
// (or -1) and where the scan stopped; the next '@' reuses it rather than
// scanning the same bytes again (a@a@a@... costs linear time).
type userinfoScan struct{ at, colon, stop int }

// maxUserinfo bounds how far left of '@' a password is looked for.
const maxUserinfo = 256

func (t *textScan) userinfoAt(at int, prev userinfoScan) userinfoScan {
	s := t.s
	i := at - 1
	for ; i >= 0 && at-i <= maxUserinfo; i-- {
		c := s[i]
		if c == ':' {
			return userinfoScan{at: at, colon: i, stop: i}
		}
		if i == prev.at { // the previous '@': a password may hold '@'
			switch {
			case prev.colon >= 0 && at-prev.colon <= maxUserinfo:
				return userinfoScan{at: at, colon: prev.colon, stop: prev.colon}
			case prev.colon < 0:
				return userinfoScan{at: at, colon: -1, stop: max(prev.stop, at-maxUserinfo-1)}
			}
			return userinfoScan{at: at, colon: -1, stop: at - maxUserinfo - 1}
		}
		if isSpace(c) || strings.IndexByte(`/?#"'<>\`+"`", c) >= 0 {
			break
		}
	}
	return userinfoScan{at: at, colon: -1, stop: i}
}

// userinfoMark marks the password before '@' at at, or a long user after
// "//" (a token), as sc found them.
func (t *textScan) userinfoMark(at int, sc userinfoScan) {
	s := t.s
	if sc.colon < 0 {
		start := sc.stop + 1
		if at-start >= 16 && start >= 2 && s[start-2:start] == "//" {
			t.mark(start, at)
		}
		return
	}
	// The user before the colon: no "mailto:" or "scheme:" alone.
	u := sc.colon - 1
	for ; u >= 0 && sc.colon-u <= 128 && isUserChar(s[u]); u-- {
	}
	user := s[u+1 : sc.colon]
	if strings.EqualFold(user, "mailto") || strings.EqualFold(user, "xmpp") || strings.EqualFold(user, "sip") {
		return
	}
	t.mark(sc.colon+1, at)
}

func isUserChar(c byte) bool {
	return isAlnum(c) || strings.IndexByte("._%+~!$&*=-", c) >= 0
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func isBase64Char(c byte) bool { return isAlnum(c) || c == '+' || c == '/' || c == '-' || c == '_' }

// minBase64Run is the shortest base64 run decoded: base64 of "pw=hunter2"
// or of {"pass":"x1"}.
const minBase64Run = 12

// base64Runs marks runs of base64 that decode to text holding a credential
// (base64 of JSON with a password, of KEY=value, of user:password), and
// runs that begin as base64 of a JSON object ("eyJ") but do not decode.
// Decoded text is redacted one level deeper (redactString): its length is
// three quarters of the run's, so the whole costs linear time.
func (t *textScan) base64Runs() {
	s := t.s
	for i := 0; i < len(s); {
		if !isBase64Char(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isBase64Char(s[j]) {
			j++
		}
		end := j
		for end < len(s) && end-j < 2 && s[end] == '=' {
			end++
		}
		if j-i >= minBase64Run {
			t.base64Run(i, j, end)
		}
		i = end
	}
}

func (t *textScan) base64Run(i, j, end int) {
	run := t.s[i:j]
	dec, ok := decodeBase64(t.s[i:end])
	if !ok {
		if strings.HasPrefix(run, "eyJ") || strings.HasPrefix(run, "eyI") {
			t.mark(i, end) // fails closed: base64 of JSON that does not decode
		}
		return
	}
	if isText(dec) && t.decodedHolds(dec) {
		t.mark(i, end)
	}
}

// decodedHolds reports whether dec, text decoded from base64 or hex, holds
// a credential: it is user:password, or redacting it one level deeper
// changes it.
func (t *textScan) decodedHolds(dec string) bool {
	return isUserPassword(dec) || redactString(dec, t.depth+1) != dec
}

// minHexRun is the shortest hex decoded: hex of "pw=hunt2".
const minHexRun = 16

// hexRuns marks hex that decodes to text holding a credential, as
// base64Runs does for base64: a run of hex digits ("0x" before it or not,
// glued to a name: DATA_4442...), or runs of one width joined by single
// newlines, spaces or colons (xxd -p's lines, 44 42 5f, 44:42:5f), decoded
// as one; the last may be shorter. A group is decoded without its first run
// too (a word's hex letters before it: "cafe 4442 5f50"), and a run of odd
// length from its second digit too (a glued a4442...). Each digit is looked
// at a bounded number of times and decoded text is half as long: linear.
func (t *textScan) hexRuns() {
	s := t.s
	for i := 0; i < len(s); {
		if !isHexDigit(s[i]) {
			i++
			continue
		}
		// The group: runs of width digits from start to end; second is
		// where its second run begins (0: it has one).
		start, end := i, hexEnd(s, i)
		width, second, last := end-start, 0, end-start
		for width%2 == 0 && last == width {
			gap := 0
			switch {
			case strings.HasPrefix(s[end:], "\r\n"):
				gap = 2
			case end < len(s) && (s[end] == '\n' || s[end] == ' ' || s[end] == ':'):
				gap = 1
			}
			next := end + gap
			if gap == 0 || next >= len(s) || !isHexDigit(s[next]) {
				break
			}
			e := hexEnd(s, next)
			if e-next > width || (e < len(s) && isIdentChar(s[e]) && s[e] != '_') {
				break
			}
			if second == 0 {
				second = next
			}
			end, last = e, e-next
		}
		if end-start >= minHexRun && !t.hexGroup(start, end) && second > 0 {
			t.hexGroup(second, end)
		}
		i = end
	}
}

// hexEnd returns where the run of hex digits at s[i] ends.
func hexEnd(s string, i int) int {
	for i < len(s) && isHexDigit(s[i]) {
		i++
	}
	return i
}

// hexGroup marks s[start:end], hex runs and their separators, decoded as
// one, when it holds a credential.
func (t *textScan) hexGroup(start, end int) bool {
	d := t.s[start:end]
	if strings.ContainsAny(d, "\r\n :") {
		var b strings.Builder
		for i := 0; i < len(d); i++ {
			if isHexDigit(d[i]) {
				b.WriteByte(d[i])
			}
		}
		d = b.String()
	}
	if len(d) < minHexRun || !(t.hexHolds(d) || (len(d)%2 != 0 && t.hexHolds(d[1:]))) {
		return false
	}
	t.mark(start, end)
	return true
}

// hexHolds reports whether the hex digits d (their even-length part) decode
// to text holding a credential.
func (t *textScan) hexHolds(d string) bool {
	b, err := hex.DecodeString(d[:len(d)&^1])
	if err != nil {
		return false
	}
	dec := string(b)
	// Text in hex this deep in encodings is hidden whole (fails closed).
	return isText(dec) && (t.depth >= maxNestedJSON || t.decodedHolds(dec))
}

func isHexDigit(c byte) bool { return isDigit(c) || ('a' <= lower(c) && lower(c) <= 'f') }

// decodeBase64 decodes s in the standard or the URL alphabet, padded or not.
func decodeBase64(s string) (string, bool) {
	s = strings.TrimRight(s, "=")
	enc := base64.RawStdEncoding
	if strings.ContainsAny(s, "-_") {
		if strings.ContainsAny(s, "+/") {
			return "", false
		}
		enc = base64.RawURLEncoding
	}
	if len(s)%4 == 1 {
		return "", false
	}
	b, err := enc.DecodeString(s)
	if err != nil {
		return "", false
	}
	return string(b), true
}

// isText reports whether b is UTF-8 text: at most one in ten runes a
// control character other than white space.
func isText(s string) bool {
	if !utf8.ValidString(s) || len(s) == 0 {
		return false
	}
	bad, n := 0, 0
	for _, r := range s {
		n++
		if r < 0x20 && r != '\n' && r != '\r' && r != '\t' || r == 0x7f {
			bad++
		}
	}
	return bad*10 <= n
}

// isUserPassword reports whether s is user:password as Basic credentials
// carry it: no spaces, a ':' with something on both sides.
func isUserPassword(s string) bool {
	c := strings.IndexByte(s, ':')
	if c <= 0 || c == len(s)-1 || strings.ContainsAny(s, " \t\r\n") {
		return false
	}
	return !strings.Contains(s, "//")
}
