package chatredact

import "strings"

// Credential names (docs/agent-data.md, Redaction). A name is split into
// lower-case words at '-', '_', '.', spaces and camelCase ("DB_PASS",
// "dbPass" and "db-pass" are the words db, pass); it names a credential when
//   - its words joined are one of isCredentialJoined's or end in one of
//     credentialSuffixes (accessToken, client_secret, x-api-key,
//     connection_string), or
//   - its last word is one of isCredentialLastWord's (DB_PASS, basic_auth,
//     sentry.dsn, hmac_sig; not bypass or compass), or
//   - it is an environment variable's name (upper case, two words or more)
//     ending in KEY (STRIPE_KEY): in lower case, partition_key is no secret.
var credentialSuffixes = []string{
	"token", "secret", "password", "passwd", "passphrase", "passcode",
	"apikey", "privatekey", "secretkey", "accesskey", "accountkey", "signingkey", "sessionkey",
	"encryptionkey", "masterkey", "clientkey", "authkey", "licensekey",
	"credentials", "credential", "authorization", "connectionstring", "connstring", "connstr",
	"dsn", "signature", "cookie", "sessionid",
	"storepass", "keypass", "privkey", "mnemonic", "seedphrase", "recoveryphrase", "requirepass", "masterauth",
	"secretstring", "secretbinary",
}

// isCredentialJoined: credentialNames (switches, not maps: a package-level
// map is built at start-up, and this package must cost nothing to the
// functions that do not call it).
func isCredentialJoined(joined string) bool {
	switch joined {
	case "auth", "pass", "pw", "pwd", "creds", "session", "sig", "setcookie", "proxyauthorization", "identifiedby":
		return true
	}
	return false
}

// isCredentialLastWord: credentialLastWords.
func isCredentialLastWord(w string) bool {
	switch w {
	case "pass", "pwd", "pw", "auth", "creds", "cred", "session", "sig", "dsn", "cookie", "secret", "token", "psk", "bearer":
		return true
	}
	return false
}

// nameKeywords are the parts, in lower case, of which every credential name
// holds one: the text scanner looks for them (pairs.go).
var nameKeywords = []string{"pw", "pass", "token", "secret", "key", "auth", "cred", "cookie", "session", "dsn", "sig", "conn", "identified",
	"psk", "mnemonic", "phrase", "bearer"}

// IsCredentialName reports whether a field of this name holds a credential:
// names match in any case, with '-', '_', '.' or camelCase.
func IsCredentialName(name string) bool {
	return isCredentialWords(nameWords(name), isEnvName(name))
}

// IsCredentialListName reports whether a field of this name is the plural of
// a credential name (api_keys, secrets, tokens): its value is a credential
// when it is a string, an array or an object, but a number under such a name
// is a count (inputTokens, max_tokens) and stays.
func IsCredentialListName(name string) bool {
	w := nameWords(name)
	env := isEnvName(name)
	if len(w) == 0 || isCredentialWords(w, env) {
		return false
	}
	last := w[len(w)-1]
	if len(last) < 2 || last[len(last)-1] != 's' {
		return false
	}
	w[len(w)-1] = last[:len(last)-1]
	return isCredentialWords(w, env)
}

// isCredentialWords is the rule above on a name's words.
func isCredentialWords(words []string, env bool) bool {
	if len(words) == 0 {
		return false
	}
	joined := strings.Join(words, "")
	if isCredentialJoined(joined) {
		return true
	}
	for _, s := range credentialSuffixes {
		if strings.HasSuffix(joined, s) {
			return true
		}
	}
	last := words[len(words)-1]
	return isCredentialLastWord(last) || (env && last == "key" && len(words) > 1)
}

// nameWords splits name into lower-case words (see above); digits stay with
// the word they follow.
func nameWords(name string) []string {
	var words []string
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			words = append(words, strings.ToLower(name[start:end]))
		}
		start = -1
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !isAlnum(c) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		if isUpper(c) {
			prev := name[i-1]
			// fooBar: a new word at B; DBPassword: a new word at P.
			if isLower(prev) || isDigit(prev) || (isUpper(prev) && i+1 < len(name) && isLower(name[i+1])) {
				flush(i)
				start = i
			}
		}
	}
	flush(len(name))
	return words
}

// isEnvName reports whether name is written as an environment variable:
// upper case letters, digits and '_'.
func isEnvName(name string) bool {
	upper := false
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case isUpper(c):
			upper = true
		case isDigit(c) || c == '_' || c == '-' || c == '.':
		default:
			return false
		}
	}
	return upper
}

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isLower(c byte) bool { return 'a' <= c && c <= 'z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isAlnum(c byte) bool { return isUpper(c) || isLower(c) || isDigit(c) }

// lower is c in lower case when it is an ASCII letter.
func lower(c byte) byte {
	if isUpper(c) {
		return c + 'a' - 'A'
	}
	return c
}
