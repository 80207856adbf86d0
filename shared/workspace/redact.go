package workspace

import "strings"

// RedactedKey replaces key-shaped text wherever the service could echo it.
const RedactedKey = "[redacted key]"

// isKeyChar reports whether c can follow the key prefix in a key.
func isKeyChar(c byte) bool { return isLetter(c) || isDigit(c) }

// ContainsKey reports whether s holds key-shaped text: KeyPrefix followed by
// at least one key character. Such text never appears in a response body or a
// log line (docs/bounds.md), whether or not it is a real key.
func ContainsKey(s string) bool {
	for i := strings.Index(s, KeyPrefix); i >= 0; {
		if j := i + len(KeyPrefix); j < len(s) && isKeyChar(s[j]) {
			return true
		}
		next := strings.Index(s[i+1:], KeyPrefix)
		if next < 0 {
			return false
		}
		i += 1 + next
	}
	return false
}

// RedactKeys returns s with every key-shaped run (KeyPrefix and the key
// characters after it) replaced by RedactedKey.
func RedactKeys(s string) string {
	if !ContainsKey(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for {
		i := strings.Index(s, KeyPrefix)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := i + len(KeyPrefix)
		end := j
		for end < len(s) && isKeyChar(s[end]) {
			end++
		}
		if end == j { // a bare prefix is no key
			b.WriteString(s[:j])
			s = s[j:]
			continue
		}
		b.WriteString(s[:i])
		b.WriteString(RedactedKey)
		s = s[end:]
	}
}
