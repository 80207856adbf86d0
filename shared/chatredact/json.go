package chatredact

import (
	"encoding/json"
	"unicode/utf8"
)

// The walk's JSON tokens. redactJSON checks its input with json.Valid
// first, so the lexer below reads valid JSON only: it is a few lines, and
// several times faster than json.Decoder.Token, which the walk spent most
// of its time in.

// tokKind is the kind of a JSON token.
type tokKind byte

const (
	tokEOF   tokKind = iota
	tokOpen          // { or [
	tokClose         // } or ]
	tokString
	tokNumber
	tokTrue
	tokFalse
	tokNull
)

// lexer reads the tokens of valid JSON.
type lexer struct {
	data []byte
	pos  int
}

// next returns the next token: its kind, its delimiter (tokOpen, tokClose),
// its text (tokString, decoded) or its bytes (tokNumber).
func (l *lexer) next() (kind tokKind, delim byte, str string, raw []byte) {
	d := l.data
	for l.pos < len(d) {
		switch c := d[l.pos]; c {
		case ' ', '\t', '\n', '\r', ',', ':':
			l.pos++
		case '{', '[':
			l.pos++
			return tokOpen, c, "", nil
		case '}', ']':
			l.pos++
			return tokClose, c, "", nil
		case '"':
			return tokString, 0, l.str(), nil
		case 't':
			l.pos += len("true")
			return tokTrue, 0, "", nil
		case 'f':
			l.pos += len("false")
			return tokFalse, 0, "", nil
		case 'n':
			l.pos += len("null")
			return tokNull, 0, "", nil
		default: // a number
			start := l.pos
			for l.pos < len(d) && isNumberByte(d[l.pos]) {
				l.pos++
			}
			return tokNumber, 0, "", d[start:l.pos]
		}
	}
	return tokEOF, 0, "", nil
}

func isNumberByte(c byte) bool {
	return isDigit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// str reads the string at l.pos, decoding its escapes.
func (l *lexer) str() string {
	d := l.data
	start := l.pos + 1
	escaped := false
	i := start
	for ; i < len(d); i++ {
		if d[i] == '\\' {
			escaped = true
			i++
			continue
		}
		if d[i] == '"' {
			break
		}
	}
	l.pos = i + 1
	if !escaped {
		return string(d[start:i])
	}
	var s string
	_ = json.Unmarshal(d[start-1:i+1], &s) // valid JSON: cannot fail
	return s
}

// skip reads past the rest of the object or array just opened.
func (l *lexer) skip() {
	depth := 1
	for depth > 0 {
		kind, _, _, _ := l.next()
		switch kind {
		case tokOpen:
			depth++
		case tokClose:
			depth--
		case tokEOF:
			return
		}
	}
}

// appendString appends s as a JSON string as encoding/json writes it
// without HTML escaping: invalid UTF-8 becomes U+FFFD, and U+2028 and
// U+2029 are escaped.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
