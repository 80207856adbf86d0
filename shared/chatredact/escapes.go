package chatredact

import (
	"strings"
	"unicode/utf8"
)

// Escaped text: a credential written in escape sequences rather than as
// itself, "\x70\x61\x73\x73..." (a string literal's hex escapes, the one
// shape a client found), "\u0070...", "\160\141..." (octal), "%70%61..."
// (percent-encoding of every byte), "&#x70;&#97;..." (HTML character
// references) or "0x70, 0x61, ..." (a C array). A group of escapes, with at
// most maxEscapeGap other bytes between two of them, and the rest of the
// word it stands in, is decoded; when the decoded text holds a credential
// (decodedHolds), the whole group is hidden.

// escapeAt returns the length of the escape sequence at s[i] and the rune
// it stands for, or 0. cArray reports a 0xHH element.
func escapeAt(s string, i int) (n int, r rune, cArray bool) {
	rest := s[i:]
	switch {
	case len(rest) >= 2 && rest[0] == '\\':
		k := 1
		if rest[1] == '\\' { // \\x70: the escape escaped once more
			k = 2
		}
		if k >= len(rest) {
			return 0, 0, false
		}
		switch c := rest[k]; c {
		case 'x', 'X', 'u', 'U':
			if len(rest) >= k+2 && rest[k+1] == '{' { // \x{70}, \u{70}
				if e := strings.IndexByte(rest[k+2:min(len(rest), k+10)], '}'); e > 0 {
					if v, ok := hexValue(rest[k+2 : k+2+e]); ok {
						return k + 3 + e, rune(v), false
					}
				}
				return 0, 0, false
			}
			digits := 2 // \x70
			if c == 'u' || c == 'U' {
				digits = 4 // \u0070
			}
			if len(rest) >= k+1+digits {
				if v, ok := hexValue(rest[k+1 : k+1+digits]); ok {
					return k + 1 + digits, rune(v), false
				}
			}
		case '0', '1', '2', '3':
			if len(rest) >= k+3 && isOctal(rest[k+1]) && isOctal(rest[k+2]) {
				return k + 3, rune(rest[k]-'0')<<6 | rune(rest[k+1]-'0')<<3 | rune(rest[k+2]-'0'), false
			}
		}
	case len(rest) >= 3 && rest[0] == '%':
		if v, ok := hexValue(rest[1:3]); ok {
			return 3, rune(v), false
		}
	case len(rest) >= 4 && rest[0] == '&' && rest[1] == '#':
		j, base := 2, 10
		if rest[2] == 'x' || rest[2] == 'X' {
			j, base = 3, 16
		}
		e := strings.IndexByte(rest[j:min(len(rest), j+9)], ';')
		if e <= 0 {
			return 0, 0, false
		}
		digits := rest[j : j+e]
		v, ok := 0, true
		for k := 0; k < len(digits) && ok; k++ {
			d := digitValue(digits[k])
			ok = d >= 0 && d < base
			v = v*base + d
		}
		if ok {
			return j + e + 1, rune(v), false
		}
	case len(rest) >= 4 && rest[0] == '0' && (rest[1] == 'x' || rest[1] == 'X') && (i == 0 || !isAlnum(s[i-1])):
		if v, ok := hexValue(rest[2:4]); ok && (len(rest) == 4 || !isHexDigit(rest[4])) {
			return 4, rune(v), true
		}
	}
	return 0, 0, false
}

func isOctal(c byte) bool { return '0' <= c && c <= '7' }

// digitValue is c's value as a hexadecimal digit, or -1.
func digitValue(c byte) int {
	switch {
	case isDigit(c):
		return int(c - '0')
	case 'a' <= lower(c) && lower(c) <= 'f':
		return int(lower(c)-'a') + 10
	}
	return -1
}

// hexValue is the value of the hex digits h (at most 6).
func hexValue(h string) (int, bool) {
	if h == "" || len(h) > 6 {
		return 0, false
	}
	v := 0
	for i := 0; i < len(h); i++ {
		d := digitValue(h[i])
		if d < 0 {
			return 0, false
		}
		v = v<<4 | d
	}
	return v, true
}

// Bounds of an escape group: the bytes between two of its escapes, and
// the fewest escapes decoded.
const (
	maxEscapeGap = 16
	minEscapes   = 3
)

// isEscapeLead: the bytes an escape begins with.
func isEscapeLead(c byte) bool { return c == '\\' || c == '%' || c == '&' || c == '0' }

// escapeRuns marks groups of escape sequences that decode to text holding
// a credential. The scan resumes past each group and the words around it,
// so each byte is decoded once, and decoded text is redacted one level
// deeper (as base64 is): linear.
func (t *textScan) escapeRuns() {
	s := t.s
	for i := 0; i < len(s); i++ {
		if !isEscapeLead(s[i]) {
			continue
		}
		n, _, _ := escapeAt(s, i)
		if n == 0 {
			continue
		}
		// The group: escapes apart by at most maxEscapeGap bytes on one line.
		start, end, count := i, i+n, 1
		for j := end; j < len(s) && j-end <= maxEscapeGap && s[j] != '\n'; {
			if isEscapeLead(s[j]) {
				if m, _, _ := escapeAt(s, j); m > 0 {
					end, count = j+m, count+1
					j = end
					continue
				}
			}
			j++
		}
		if count >= minEscapes {
			end = t.escapeGroup(start, end)
		}
		i = end - 1
	}
}

// maxEscapeWord bounds how far the words around an escape group are read.
const maxEscapeWord = 256

// escapeGroup decodes the escapes of s[start:end] with the rest of the
// words it stands in, marks it all when the text holds a credential, and
// returns where the words end.
func (t *textScan) escapeGroup(start, end int) int {
	s := t.s
	for from := start; start > 0 && from-start < maxEscapeWord && !isSpace(s[start-1]) && !isQuote(s[start-1]); {
		start--
	}
	for to := end; end < len(s) && end-to < maxEscapeWord && !isSpace(s[end]) && !isQuote(s[end]); {
		end++
	}
	var b strings.Builder
	b.Grow(end - start)
	for i := start; i < end; {
		if isEscapeLead(s[i]) {
			if n, r, arr := escapeAt(s, i); n > 0 {
				if r < utf8.RuneSelf {
					b.WriteByte(byte(r))
				} else {
					b.WriteRune(r)
				}
				i += n
				if arr { // 0x70, 0x61: the separators are not text
					for i < end && (s[i] == ',' || s[i] == ' ' || s[i] == '\t') {
						i++
					}
				}
				continue
			}
		}
		b.WriteByte(s[i])
		i++
	}
	if dec := b.String(); isText(dec) && t.decodedHolds(dec) {
		t.mark(start, end)
	}
	return end
}

func isQuote(c byte) bool { return c == '"' || c == '\'' || c == '`' }
