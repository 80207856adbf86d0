package chatredact

import "strings"

// Shapes with no name before their secret, or a name of one letter: DSN
// passwords holding the characters that end a URL's parts, .pgpass lines,
// and a JSON Web Key's private members.

// maxURLPassword bounds how far after "scheme://user:" the '@' that ends a
// password is looked for.
const maxURLPassword = 256

// urlPasswords marks the password of scheme://user:password@host when it
// holds what ends a URL's parts elsewhere ('#', '?', '/', ':', a space),
// which userinfo, reading back from the '@', stops at: the password runs
// from the first ':' after the user to the last '@' followed by a host on
// the same line (at most maxURLPassword bytes on, before another "://" or
// a quote). A port (host:8080/path) is no password. Each byte is read at
// most twice: linear.
func (t *textScan) urlPasswords() {
	s := t.s
	for k := strings.Index(s, "://"); k >= 0; {
		p := k + 3
		next := func() int {
			n := strings.Index(s[p:], "://")
			if n < 0 {
				return -1
			}
			return p + n
		}
		u := p
		for u < len(s) && u-p <= 128 && isUserChar(s[u]) && s[u] != ':' {
			u++
		}
		if u >= len(s) || s[u] != ':' {
			k = next()
			continue
		}
		pw := u + 1
		if isPort(s, pw) {
			k = next()
			continue
		}
		at, end := -1, min(len(s), pw+maxURLPassword)
		for i := pw; i < end; i++ {
			c := s[i]
			if c == '\n' || c == '\r' || c == '"' || c == '\'' || c == '<' || c == '>' || c == '`' || strings.HasPrefix(s[i:], "://") {
				break
			}
			if c == '@' && i+1 < len(s) && (isAlnum(s[i+1]) || s[i+1] == '[') {
				at = i
			}
		}
		if at > pw {
			t.mark(pw, at)
		}
		k = next()
	}
}

// isPort reports whether s[i:] begins with a port: digits, then the end of
// the authority ('/', '?', '#', a blank, a quote or the end of s).
func isPort(s string, i int) bool {
	j := i
	for j < len(s) && j-i < 6 && isDigit(s[j]) {
		j++
	}
	if j == i {
		return false
	}
	return j == len(s) || isSpace(s[j]) || strings.IndexByte("/?#\"'<>),;]", s[j]) >= 0
}

// pgpassLines marks the password of .pgpass lines,
// host:port:database:user:password (a port or '*'): the rest of the line
// when the entry starts it, else the rest of the word.
func (t *textScan) pgpassLines() {
	s := t.s
	for i := 0; i < len(s); {
		if isSpace(s[i]) || s[i] == '"' || s[i] == '\'' || s[i] == '`' {
			i++
			continue
		}
		j := i
		colons := 0
		for j < len(s) && !isSpace(s[j]) && s[j] != '"' && s[j] != '\'' && s[j] != '`' {
			if s[j] == ':' {
				colons++
			}
			j++
		}
		if colons >= 4 {
			t.pgpassEntry(i, j)
		}
		i = j
	}
}

// pgpassEntry marks the password if s[i:j], a word, is a .pgpass entry.
func (t *textScan) pgpassEntry(i, j int) {
	s := t.s
	var f [4]string
	p := i
	for n := 0; n < 4; n++ {
		c := strings.IndexByte(s[p:j], ':')
		for c > 0 && s[p+c-1] == '\\' { // an escaped ':'
			c2 := strings.IndexByte(s[p+c+1:j], ':')
			if c2 < 0 {
				return
			}
			c += 1 + c2
		}
		if c <= 0 {
			return
		}
		f[n] = s[p : p+c]
		p += c + 1
	}
	if p >= j || !isPortOrStar(f[1]) || allDigits(f[0]) || allDigits(f[2]) || strings.ContainsAny(f[0]+f[2]+f[3], "/=@(){}<>,") {
		return
	}
	end := j
	if startsLine(s, i) { // the line's rest: a password may hold spaces
		for end < len(s) && s[end] != '\n' && s[end] != '\r' {
			end++
		}
		for end > p && (s[end-1] == ' ' || s[end-1] == '\t') {
			end--
		}
	}
	t.mark(p, end)
}

func isPortOrStar(f string) bool {
	if f == "*" {
		return true
	}
	return len(f) <= 5 && allDigits(f) && !strings.Contains(f, ".")
}

// jwkKeywords are a JSON Web Key's private members as text quotes them:
// RSA's d, p, q, dp, dq and qi, EC's and OKP's d, and a symmetric key's k.
var jwkKeywords = []string{`"d"`, `"p"`, `"q"`, `"dp"`, `"dq"`, `"qi"`, `"k"`, `'d'`, `'p'`, `'q'`, `'dp'`, `'dq'`, `'qi'`, `'k'`}

// isJWKPrivateMember reports whether a JSON member of this name holds a
// JSON Web Key's private part when its value is base64url (jwkValue).
func isJWKPrivateMember(name string) bool {
	switch name {
	case "d", "p", "q", "dp", "dq", "qi", "k":
		return true
	}
	return false
}

// minJWKValue: the shortest base64url value hidden under a JWK member's
// name (16 bytes of a key are 22 characters).
const minJWKValue = 16

// isJWKValue reports whether v looks like a JWK's base64url key material.
func isJWKValue(v string) bool {
	if len(v) < minJWKValue {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; !isAlnum(c) && c != '-' && c != '_' && c != '=' {
			return false
		}
	}
	return true
}

// jwkMember marks the value of a quoted JWK private member found at s[i:i+n]
// in text (a JWK in Python or JavaScript that is not valid JSON).
func (t *textScan) jwkMember(i, n int) {
	s := t.s
	p := skipBlanks(s, i+n)
	if p >= len(s) || (s[p] != ':' && s[p] != '=') {
		return
	}
	p = skipBlanks(s, p+1)
	if p >= len(s) || (s[p] != '"' && s[p] != '\'') {
		return
	}
	q := s[p]
	end := p + 1
	for end < len(s) && end-p < 8192 && s[end] != q && (isAlnum(s[end]) || s[end] == '-' || s[end] == '_' || s[end] == '=') {
		end++
	}
	if end < len(s) && s[end] == q && isJWKValue(s[p+1:end]) {
		t.mark(p+1, end)
	}
}
