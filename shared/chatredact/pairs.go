package chatredact

import "strings"

// The pair parser: a credential name (names.go) in text, then a separator,
// then the value, which is hidden. It understands
//   - env files, properties, INI, TOML and YAML: NAME=value, name: value,
//     name = "value", export NAME=value, - NAME=value (a name that starts a
//     line takes the rest of the line; elsewhere an assigned unquoted value
//     runs on past spaces, for up to maxValueWords more words, to the next
//     pair, a flag, a closing mark or a sentence's end);
//   - headers: Authorization: Basic ..., x-api-key: ..., Set-Cookie: ...
//     (an auth scheme word such as Basic or Bearer stays);
//   - query strings and forms: ?access_token=...&, password%3D... ;
//   - JSON, Python or JavaScript that is not valid JSON: "password": "...",
//     'pass': '...', password='...', {"name": "DB_PASS", "value": "..."};
//   - XML: <password>...</password>, <entry key="password">...</entry>,
//     <add key="DbPassword" value="..."/>;
//   - command lines: --password VALUE, --password=VALUE;
//   - prose and code: "my password is ...", PASSWORD '...', setPassword("..."),
//     api key: ..., and a name followed by a token-like word ("token abc123").
// A plural name's number (max_tokens: 100) stays.

// maxName bounds how far a name is followed around a keyword.
const maxName = 64

// pairAt looks at the name holding the keyword found at s[i:i+n]; it marks
// the value of a credential-named pair and returns where the scan of names
// may resume.
func (t *textScan) pairAt(i, n int) int {
	s := t.s
	l, r := i, i+n
	for l > 0 && i-l < maxName && isIdentChar(s[l-1]) {
		l--
	}
	for r < len(s) && isIdentChar(s[r]) {
		r++
	}
	resume := r
	if r-i > maxName {
		return resume // no name goes on that long after its credential word
	}
	nl, nr := l, r
	flag := 0
	for nl < nr && s[nl] == '-' {
		nl++
		flag++
	}
	for nr > nl && (s[nr-1] == '.' || s[nr-1] == '-') {
		nr--
	}
	if nr <= nl {
		return resume
	}
	name := s[nl:nr]
	cred := IsCredentialName(name)
	list := !cred && IsCredentialListName(name)
	if !cred && !list {
		// Two words: "API key", "access token", "IDENTIFIED BY".
		words := nameWords(name)
		if nl >= 2 && s[nl-1] == ' ' && isAlnum(s[nl-2]) {
			pl := nl - 1
			for pl > 0 && nl-pl < 32 && isAlnum(s[pl-1]) {
				pl--
			}
			if isCredentialWords(append(nameWords(s[pl:nl-1]), words...), false) {
				nl, cred = pl, true
			}
		}
		if !cred && nr+1 < len(s) && s[nr] == ' ' && isAlnum(s[nr+1]) {
			ne := nr + 1
			for ne < len(s) && ne-nr < 32 && isAlnum(s[ne]) {
				ne++
			}
			if isCredentialWords(append(words, nameWords(s[nr+1:ne])...), false) {
				nr, cred = ne, true
				resume = max(resume, ne)
			}
		}
		if !cred {
			return resume
		}
	}
	if end := t.pairValue(nl, nr, flag, list); end > resume {
		resume = end
	}
	return resume
}

// isIdentChar: the characters of a name in text.
func isIdentChar(c byte) bool { return isAlnum(c) || c == '_' || c == '-' || c == '.' }

// pairValue parses the separator and the value after the credential name
// s[nl:nr] (flag: the '-' before it) and marks the value; it returns the
// value's end, or -1.
func (t *textScan) pairValue(nl, nr, flag int, list bool) int {
	s := t.s
	p := nr
	// How the name is written: quoted, an XML tag, URL-encoded in quotes.
	var q byte
	escaped := false
	b := nl - flag // where the name begins, its dashes included
	switch {
	case b >= 3 && strings.EqualFold(s[b-3:b], "%22"):
		q = '%'
	case b >= 1 && (s[b-1] == '"' || s[b-1] == '\'' || s[b-1] == '`'):
		q = s[b-1]
		escaped = b >= 2 && s[b-2] == '\\'
	case b >= 1 && s[b-1] == '<' && p < len(s) && (s[p] == '>' || s[p] == ' '):
		// <password>value</password>, <password type="x">value</password>;
		// anything else after <password is read as any other pair.
		k := p
		for k < len(s) && k-p < 256 && s[k] != '>' && s[k] != '<' && s[k] != '\n' {
			k++
		}
		if k < len(s) && s[k] == '>' && s[k-1] != '/' {
			if end := t.valueUntil(k+1, '<'); end >= 0 {
				return end
			}
		}
	}
	if q != 0 {
		switch {
		case q == '%' && hasPrefixFold(s[p:], "%22"):
			p += 3
		case escaped && p+1 < len(s) && s[p] == '\\' && s[p+1] == q:
			p += 2
		case p < len(s) && s[p] == q:
			p++
		default:
			q = 0
		}
	}
	if p < len(s) && s[p] == ']' { // params[password]=
		p++
	}
	sp := p
	p = skipBlanks(s, p)
	spaced := p > sp
	if p >= len(s) {
		return -1
	}
	urlEncoded, quotedOnly, word, loose := false, false, false, false
	opAt := p
	switch c := s[p]; {
	case strings.HasPrefix(s[p:], ":=") || strings.HasPrefix(s[p:], "=>") || strings.HasPrefix(s[p:], "==") ||
		strings.HasPrefix(s[p:], "?=") || strings.HasPrefix(s[p:], "+="):
		p += 2
	case c == '=' || c == '|':
		p++
	case c == ':':
		if p+1 < len(s) && s[p+1] == ':' {
			return -1 // Token::new
		}
		p++
	case hasPrefixFold(s[p:], "%3d") || hasPrefixFold(s[p:], "%3a"):
		p += 3
		urlEncoded = true
	case c == '>' && q != 0: // <entry key="password">value</entry>
		return t.valueUntil(p+1, '<')
	case c == '(' && !list:
		p++
		quotedOnly = true
	case q != 0 && c == ',' && (flag > 0 || opensTuple(s, b-1)):
		// ["--password", "value"], ("password", "value"), [["X-Api-Key", "value"]]
		p++
	case q != 0 && (c == ',' || hasPrefixFold(s[p:], "value")):
		// {"name": "DB_PASS", "value": "..."}, <add key="DbPassword" value="..."/>
		k, ok := valueKeyAhead(s, p)
		if !ok {
			return -1
		}
		p = k
	case spaced && (hasWordFold(s[p:], "is") || hasWordFold(s[p:], "was") || hasWordFold(s[p:], "are")):
		for p < len(s) && isAlnum(s[p]) {
			p++
		}
		if p < len(s) && s[p] == ':' {
			p++
		}
		word = true
	case spaced && flag > 0: // --password VALUE
		if c == '-' {
			return -1
		}
		loose = true
	case spaced && (c == '"' || c == '\''): // PASSWORD 'value', IDENTIFIED BY 'value'
	case spaced && looksLikeSecret(s[p:]): // token abc123
		loose = true
	case spaced:
		// A few words on: "the password for the staging DB is hunter2".
		k, ok := proseSeparator(s, p)
		if !ok {
			return -1
		}
		p, word = k, true
	default:
		return -1
	}
	sep := p
	p = skipBlanks(s, p)
	if p >= len(s) {
		return -1
	}
	// A YAML name that starts its line with nothing after its colon but a
	// block header (password:, password: |2-, password: !!str # note) has
	// its value in the lines indented below it.
	if s[sep-1] == ':' && startsLine(s, b-btoi(q != 0)) {
		if nl, ok := yamlBlockHeader(s, p); ok {
			if end := t.indentedBlock(b-btoi(q != 0), nl); end >= 0 {
				return end
			}
		}
	}
	if s[p] == '\n' || s[p] == '\r' {
		return -1 // nothing on this line
	}
	if (s[p] == '|' || s[p] == '>') && restOfLineBlank(s, p+1) {
		// A block scalar, not indented: its next line.
		nl := strings.IndexByte(s[p:], '\n')
		if nl < 0 {
			return -1
		}
		return t.valueToLineEnd(skipBlanks(s, p+nl+1))
	}
	// Markdown emphasis closing the name: **Password:** value.
	if s[p] == '*' {
		for p < len(s) && s[p] == '*' {
			p++
		}
		if p = skipBlanks(s, p); p >= len(s) {
			return -1
		}
	}
	// An auth scheme stays: Authorization: Basic [REDACTED].
	if w := schemeWord(s[p:]); w > 0 && p+w < len(s) && s[p+w] == ' ' {
		p = skipBlanks(s, p+w)
	}
	c0 := s[p]
	switch c := c0; {
	case c == '"' || c == '\'' || c == '`':
		return t.quotedValue(p+1, c, false)
	case c == '\\' && p+1 < len(s) && (s[p+1] == '"' || s[p+1] == '\''):
		return t.quotedValue(p+2, s[p+1], true)
	case hasPrefixFold(s[p:], "%22") || hasPrefixFold(s[p:], "%27"):
		return t.valueUntilSeq(p+3, s[p:p+3])
	case quotedOnly:
		return -1
	case (c == '(' || c == '[' || c == '{') && !loose && !word:
		return t.bracketValue(p)
	}
	if word && c0 != '"' && c0 != '\'' && !looksLikeSecretWord(s[p:]) {
		return -1 // "the token is invalid": prose, not a secret
	}
	lineMode := !word && !urlEncoded && sep > 0 && (s[sep-1] == '=' || s[sep-1] == ':') && startsLine(s, b-btoi(q != 0))
	// Mid-line, an assigned value runs on past spaces (password = correct
	// horse battery staple) for a few words, up to the next pair; a
	// comparison (token == nil), a flag's value, a plural name's number and a
	// loose token stop at the first space.
	spacedValue := !word && !lineMode && !loose && flag == 0 && !list && isAssignment(s[opAt:sep])
	end, words := p, 0
	for ; end < len(s); end++ {
		c := s[end]
		if spacedValue && (c == ' ' || c == '\t') {
			k := blanksEnd(s, end)
			if words < maxValueWords && !valueEndsAt(s, end, k) {
				words++
				end = k - 1 // one step over the whole run of blanks: linear
				continue
			}
		}
		if c == '\n' || c == '\r' {
			break
		}
		if c == '\\' && end+1 < len(s) && (s[end+1] == 'n' || s[end+1] == 'r' || s[end+1] == '"' || s[end+1] == '\'') {
			break
		}
		if urlEncoded && c == '%' && (hasPrefixFold(s[end:], "%26") || hasPrefixFold(s[end:], "%22") || hasPrefixFold(s[end:], "%20") || hasPrefixFold(s[end:], "%2c")) {
			break
		}
		if !lineMode && (isSpace(c) || strings.IndexByte("&\"'<>,;)]}`", c) >= 0) {
			break
		}
	}
	for lineMode && end > p && (s[end-1] == ' ' || s[end-1] == '\t') {
		end--
	}
	v := s[p:end]
	if v == "" || strings.HasPrefix(v, RedactedValue) || (list && allDigits(v)) {
		return -1
	}
	t.mark(p, end)
	return end
}

// maxValueWords bounds how many more words an unquoted value mid-line runs
// on to: a passphrase's, not a paragraph's.
const maxValueWords = 8

// isAssignment reports whether op, the separator after a credential name,
// assigns a value (=, :, :=, =>, ?=, +=) rather than compares one (==).
func isAssignment(op string) bool {
	switch op {
	case "=", ":", ":=", "=>", "?=", "+=":
		return true
	}
	return false
}

// valueEndsAt reports whether an unquoted value that reached the blanks
// s[i:k] ends there: a sentence ended before them, or nothing but the line's
// end, a closing mark, a flag (-v, --verbose) or the next pair (user=bob,
// host: db) follows them.
func valueEndsAt(s string, i, k int) bool {
	if i > 0 && strings.IndexByte(".!?", s[i-1]) >= 0 {
		return true
	}
	if k >= len(s) || isSpace(s[k]) || strings.IndexByte("&\"'<>,;)]}`\\-", s[k]) >= 0 {
		return true
	}
	if !isUpper(s[k]) && !isLower(s[k]) {
		return false // 12:00 is no name
	}
	j := k
	for j < len(s) && j-k < maxName && isIdentChar(s[j]) {
		j++
	}
	j = skipBlanks(s, j)
	return j < len(s) && (s[j] == '=' || (s[j] == ':' && !strings.HasPrefix(s[j:], "://")))
}

// yamlBlockHeader reports whether what follows a YAML name's colon at p,
// up to the end of the line, announces a value on the lines below: nothing,
// or a tag (!!str), an anchor (&pw), a block scalar's indicator (|, >-, |2)
// and a comment, in that order. It returns the line break's index.
func yamlBlockHeader(s string, p int) (int, bool) {
	for p < len(s) && (s[p] == '!' || s[p] == '&') {
		for p < len(s) && !isSpace(s[p]) {
			p++
		}
		p = skipBlanks(s, p)
	}
	if p < len(s) && (s[p] == '|' || s[p] == '>') {
		for p++; p < len(s) && (isDigit(s[p]) || s[p] == '-' || s[p] == '+'); p++ {
		}
		p = skipBlanks(s, p)
	}
	if p < len(s) && s[p] == '#' && (p == 0 || s[p-1] == ' ' || s[p-1] == '\t') {
		for p < len(s) && s[p] != '\n' && s[p] != '\r' {
			p++
		}
	}
	return p, p < len(s) && (s[p] == '\n' || s[p] == '\r')
}

// maxBlockLines bounds the lines of a YAML value indented below its name.
const maxBlockLines = 1024

// indentedBlock marks the lines after the line break at nl that are
// indented deeper than the name at nameAt (a YAML value below its name: a
// plain or block scalar, or a mapping under a credential name, hidden whole
// as a JSON object under one is); blank lines inside it stay. It returns
// the block's end, or -1 when no line is indented below the name.
func (t *textScan) indentedBlock(nameAt, nl int) int {
	s := t.s
	col := nameAt - (strings.LastIndexByte(s[:nameAt], '\n') + 1)
	end, i := -1, nl
	for lines := 0; i < len(s) && lines < maxBlockLines; lines++ {
		if s[i] == '\r' {
			i++
		}
		if i < len(s) && s[i] == '\n' {
			i++
		}
		k := blanksEnd(s, i)
		le := k
		for le < len(s) && s[le] != '\n' && s[le] != '\r' {
			le++
		}
		if k < le {
			if k-i <= col {
				break
			}
			t.mark(k, le)
			end = le
		}
		i = le
	}
	return end
}

// quotedValue marks a quoted value starting at p up to its closing quote q
// (escaped: \" closes it; a backslash escapes otherwise), or the end of the
// line.
func (t *textScan) quotedValue(p int, q byte, escaped bool) int {
	s := t.s
	end := p
	for ; end < len(s); end++ {
		c := s[end]
		if c == '\n' || c == '\r' {
			break
		}
		if c == '\\' && end+1 < len(s) {
			if escaped && s[end+1] == q {
				break
			}
			end++
			continue
		}
		if c == q {
			break
		}
	}
	end = min(end, len(s))
	if end == p || strings.HasPrefix(s[p:end], RedactedValue) {
		return -1
	}
	t.mark(p, end)
	return end
}

// valueUntil marks s[p:] up to the byte stop (an XML value up to '<').
func (t *textScan) valueUntil(p int, stop byte) int {
	end := strings.IndexByte(t.s[p:], stop)
	if end < 0 {
		end = len(t.s)
	} else {
		end += p
	}
	if v := strings.TrimSpace(t.s[p:end]); v == "" || strings.HasPrefix(v, RedactedValue) {
		return -1
	}
	t.mark(p, end)
	return end
}

// valueUntilSeq marks s[p:] up to seq in any case (a URL-encoded quote).
func (t *textScan) valueUntilSeq(p int, seq string) int {
	s := t.s
	end := p
	for ; end < len(s) && !hasPrefixFold(s[end:], strings.ToLower(seq)) && s[end] != '\n'; end++ {
	}
	if end == p {
		return -1
	}
	t.mark(p, end)
	return end
}

// valueToLineEnd marks the rest of the line from p.
func (t *textScan) valueToLineEnd(p int) int {
	s := t.s
	end := p
	for end < len(s) && s[end] != '\n' && s[end] != '\r' {
		end++
	}
	if v := strings.TrimSpace(s[p:end]); v == "" || strings.HasPrefix(v, RedactedValue) {
		return -1
	}
	t.mark(p, end)
	return end
}

// bracketValue marks a bracketed value (auth=('user', 'pw'), a YAML flow
// mapping) up to its closing bracket, at most 1024 bytes on.
func (t *textScan) bracketValue(p int) int {
	s := t.s
	open := s[p]
	closing := byte(')')
	switch open {
	case '[':
		closing = ']'
	case '{':
		closing = '}'
	}
	depth := 0
	end := p
	for ; end < len(s) && end-p < 1024; end++ {
		switch s[end] {
		case open:
			depth++
		case closing:
			depth--
		}
		if depth == 0 {
			break
		}
	}
	if end <= p+1 {
		return -1
	}
	t.mark(p+1, end)
	return end
}

// valueKeyAhead: after a quoted credential name at p, `, "value":`,
// `, "ParameterValue":` or ` value=` naming the value that follows (a
// name/value object's value member, isValueMember); it returns where the
// value starts.
func valueKeyAhead(s string, p int) (int, bool) {
	p = skipBlanks(s, p)
	if p < len(s) && s[p] == ',' {
		p = skipBlanks(s, p+1)
	}
	q := byte(0)
	if p < len(s) && (s[p] == '"' || s[p] == '\'') {
		q = s[p]
		p++
	}
	k := p
	for k < len(s) && k-p < maxName && isIdentChar(s[k]) {
		k++
	}
	if k == p || !isValueMember(normalMember(s[p:k])) {
		return 0, false
	}
	p = k
	if q != 0 {
		if p >= len(s) || s[p] != q {
			return 0, false
		}
		p++
	}
	p = skipBlanks(s, p)
	if p < len(s) && (s[p] == ':' || s[p] == '=') {
		return p + 1, true
	}
	return 0, false
}

// opensTuple reports whether the quote at s[q] opens a tuple's or a list's
// first item: '(', '[' or '{' before it, blanks apart.
func opensTuple(s string, q int) bool {
	i := q - 1
	for i >= 0 && q-i <= 16 && (s[i] == ' ' || s[i] == '\t') {
		i--
	}
	return i >= 0 && (s[i] == '(' || s[i] == '[' || s[i] == '{')
}

// proseSeparator looks a few words past a credential name in prose, on the
// same line and in the same sentence, for "is", "was" or "are" (or a word
// ending in ':'), and returns where the value would start.
func proseSeparator(s string, p int) (int, bool) {
	end := min(len(s), p+64)
	for words := 0; words < 6 && p < end; words++ {
		start := p
		for p < end && (isAlnum(s[p]) || s[p] == '-' || s[p] == '_') {
			p++
		}
		if p == start {
			return 0, false
		}
		w := s[start:p]
		if strings.EqualFold(w, "is") || strings.EqualFold(w, "was") || strings.EqualFold(w, "are") {
			if p < len(s) && s[p] == ':' {
				p++
			}
			return p, p < len(s) && (s[p] == ' ' || s[p] == '\t')
		}
		if p < len(s) && s[p] == ':' {
			return p + 1, true
		}
		if p >= len(s) || s[p] != ' ' {
			return 0, false
		}
		p++
	}
	return 0, false
}

// skipBlanks skips spaces and tabs, at most 16.
func skipBlanks(s string, p int) int {
	for k := 0; p < len(s) && k < 16 && (s[p] == ' ' || s[p] == '\t'); k++ {
		p++
	}
	return p
}

// blanksEnd returns where the run of spaces and tabs at s[i] ends, however
// long it is (skipBlanks stops at 16).
func blanksEnd(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

func restOfLineBlank(s string, p int) bool {
	for ; p < len(s) && s[p] != '\n'; p++ {
		if !isSpace(s[p]) && s[p] != '-' && s[p] != '+' {
			return false
		}
	}
	return true
}

// hasWordFold reports whether s begins with word (lower case) followed by a
// space or a colon.
func hasWordFold(s, word string) bool {
	return hasPrefixFold(s, word) && len(s) > len(word) && (s[len(word)] == ' ' || s[len(word)] == ':')
}

// schemeWords are auth schemes kept before a hidden credential.
var schemeWords = []string{"basic", "bearer", "token", "digest", "negotiate", "ntlm", "bot", "apikey", "key", "sso-key", "ssws", "hmac", "aws4-hmac-sha256"}

// schemeWord returns the length of the auth scheme s begins with, or 0.
func schemeWord(s string) int {
	for _, w := range schemeWords {
		if hasPrefixFold(s, w) && (len(s) == len(w) || !isIdentChar(s[len(w)])) {
			return len(w)
		}
	}
	return 0
}

// looksLikeSecret reports whether the word s begins with looks like a
// secret rather than prose: six characters or more, letters and digits.
func looksLikeSecret(s string) bool {
	if s == "" || !isAlnum(s[0]) {
		return false
	}
	end := 0
	letter, digit := false, false
	for end < len(s) && end < 256 && !isSpace(s[end]) {
		switch c := s[end]; {
		case isDigit(c):
			digit = true
		case isUpper(c) || isLower(c):
			letter = true
		}
		end++
	}
	return end >= 6 && letter && digit && !strings.HasPrefix(s, RedactedValue)
}

// looksLikeSecretWord is looser, for a value after "is" or "was": six
// characters or more with a digit, a symbol or a capital letter inside
// (hunter2, Tr0ub4dor&3, CorrectHorse; not "invalid." or "replaced:").
func looksLikeSecretWord(s string) bool {
	end := 0
	for end < len(s) && end < 256 && !isSpace(s[end]) {
		end++
	}
	w := strings.TrimRight(s[:end], ".,:;!?)]}'\"")
	if len(w) < 6 || strings.HasPrefix(w, RedactedValue) {
		return false
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if isDigit(c) || (i > 0 && isUpper(c)) || (!isAlnum(c) && c != '-' && c != '\'') {
			return true
		}
	}
	return false
}

// startsLine reports whether only indentation, a list marker, a comment
// sign or a shell word (export, set, ENV...) precede s[i] on its line.
func startsLine(s string, i int) bool {
	k := i
	for k > 0 && i-k < 64 && s[k-1] != '\n' {
		k--
	}
	if k > 0 && s[k-1] != '\n' {
		return false
	}
	pre := strings.TrimLeft(s[k:i], " \t-*#>")
	for _, w := range []string{"export ", "set ", "setx ", "env ", "arg ", "declare ", "local ", "readonly ", "$env:"} {
		if hasPrefixFold(pre, w) {
			pre = strings.TrimLeft(pre[len(w):], " \t")
			break
		}
	}
	return pre == ""
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) && s[i] != '.' {
			return false
		}
	}
	return s != ""
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
