package workspace

import "strings"

// MaxEmailLength is the longest e-mail address accepted, in characters.
const MaxEmailLength = 254

// ValidateEmail returns a KindInvalid error unless s matches the e-mail pattern
// of docs/endpoints.md (E-mail addresses) taken literally: ASCII only, no
// trimming, a local part of letters, digits and _ ' + - . with no leading dot,
// no two consecutive dots and a last character that is a letter, digit, _, +
// or -; a domain of at least two dot-separated labels, each starting with a
// letter or digit and made of letters, digits and hyphens, the last of letters
// only and at least two long.
func ValidateEmail(s string) error {
	if s == "" {
		return Invalid("email is required")
	}
	if len(s) > MaxEmailLength {
		return Invalid("email must be at most %d characters", MaxEmailLength)
	}
	at := strings.IndexByte(s, '@')
	if at < 0 || !validLocalPart(s[:at]) || !validDomain(s[at+1:]) {
		return Invalid("email is not a valid e-mail address")
	}
	return nil
}

func isLetter(c byte) bool { return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }

func validLocalPart(l string) bool {
	if l == "" || l[0] == '.' {
		return false
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		switch {
		case isLetter(c), isDigit(c), c == '_', c == '\'', c == '+', c == '-':
		case c == '.':
			if i > 0 && l[i-1] == '.' {
				return false
			}
		default:
			return false
		}
	}
	last := l[len(l)-1]
	return isLetter(last) || isDigit(last) || last == '_' || last == '+' || last == '-'
}

func validDomain(d string) bool {
	labels := strings.Split(d, ".")
	if len(labels) < 2 {
		return false
	}
	for _, label := range labels[:len(labels)-1] {
		if label == "" || !(isLetter(label[0]) || isDigit(label[0])) {
			return false
		}
		for i := 1; i < len(label); i++ {
			if c := label[i]; !(isLetter(c) || isDigit(c) || c == '-') {
				return false
			}
		}
	}
	tld := labels[len(labels)-1]
	if len(tld) < 2 {
		return false
	}
	for i := 0; i < len(tld); i++ {
		if !isLetter(tld[i]) {
			return false
		}
	}
	return true
}

// NormalizeEmail returns the form e-mails are compared and stored under:
// ASCII lower case (addresses are compared case-insensitively).
func NormalizeEmail(s string) string { return strings.ToLower(s) }

// EmailDomain returns the part of an address after its '@', lower-cased.
func EmailDomain(s string) string {
	return strings.ToLower(s[strings.IndexByte(s, '@')+1:])
}
