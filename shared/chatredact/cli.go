package chatredact

import (
	"path"
	"strings"
)

// Command lines: the words a command takes a password in, whether the
// command line is text (docker login -p VALUE, sqlplus ann/VALUE@db) or a
// JSON array of words (["docker", "login", "-p", "VALUE"]). One state
// machine (argvState) reads the words in both cases: the JSON walk feeds it
// an array's strings, the text scanner (commandAt) a line's words.

// cliSpec is how one command takes a password.
type cliSpec struct {
	// sub: the word (a subcommand) that must come before flags count, or "".
	sub string
	// flags take a password as the next word, or glued (-pVALUE, when glued).
	flags []string
	glued bool
	// userFlags take user<sep>password: what follows sep is hidden (the whole
	// word when it has no sep: a token).
	userFlags []string
	sep       byte
	// nth: the nth word after sub (or the command) that is not a flag is a
	// password (wpa_passphrase SSID VALUE, vault login VALUE).
	nth int
	// slash: a word user/password@db is one (sqlplus, expdp, rman).
	slash bool
	// assign: every NAME=VALUE word is a secret (flyctl secrets set).
	assign bool
	// lines: the words go on past line breaks, up to a blank line (.netrc).
	lines bool
}

// Specs are switches, not maps: nothing is built at start-up.
var (
	specRegistryLogin = []cliSpec{{sub: "login", flags: []string{"-p", "--password"}}}
	specMongo         = []cliSpec{{flags: []string{"-p", "--password"}}}
	specLDAP          = []cliSpec{{flags: []string{"-w"}, glued: true}}
	specLDAPPasswd    = []cliSpec{{flags: []string{"-w", "-s", "-a"}, glued: true}}
	specCapitalP      = []cliSpec{{flags: []string{"-P"}, glued: true}}
	specSmallP        = []cliSpec{{flags: []string{"-p"}}}
	specSmallPGlued   = []cliSpec{{flags: []string{"-p"}, glued: true}}
	specZip           = []cliSpec{{flags: []string{"-P"}, glued: true}}
	specRar           = []cliSpec{{flags: []string{"-p", "-hp"}, glued: true}}
	specSSHKeygen     = []cliSpec{{flags: []string{"-P", "-N"}, glued: true}}
	specFreeRDP       = []cliSpec{{flags: []string{"/p:", "/password:", "/pth:", "/gp:"}, glued: true}}
	specWindows       = []cliSpec{{flags: []string{"/p:", "/pass:", "/password:", "/rp", "/passwd:"}, glued: true}}
	specOpenSSL       = []cliSpec{{flags: []string{"-passin", "-passout", "-pass", "-k", "-password", "-kfile"}}, {sub: "passwd", nth: 1}}
	specKeytool       = []cliSpec{{flags: []string{"-storepass", "-keypass", "-srcstorepass", "-deststorepass", "-srckeypass", "-destkeypass", "-new"}}}
	specApksigner     = []cliSpec{{flags: []string{"--ks-pass", "--key-pass"}}}
	specSNMP          = []cliSpec{{flags: []string{"-A", "-X", "-c"}, glued: true}}
	specCurl          = []cliSpec{{flags: []string{"-u", "--user", "-U", "--proxy-user", "-b", "--cookie", "--oauth2-bearer", "--proxy-pass"}},
		{userFlags: []string{"-E", "--cert"}, sep: ':'}}
	specHTTPie    = []cliSpec{{userFlags: []string{"-a", "--auth"}, sep: ':'}}
	specSMB       = []cliSpec{{userFlags: []string{"-U", "--user"}, sep: '%'}, {userFlags: []string{"-p", "--password"}}}
	specNetUser   = []cliSpec{{userFlags: []string{"-U", "--user"}, sep: '%'}, {sub: "user", nth: 2}}
	specLftp      = []cliSpec{{userFlags: []string{"-u", "--user"}, sep: ','}}
	specOracle    = []cliSpec{{slash: true}}
	specDB2       = []cliSpec{{flags: []string{"using"}}}
	specNetrc     = []cliSpec{{flags: []string{"password", "passwd", "account"}, lines: true}}
	specNetrcDflt = []cliSpec{{sub: "login", flags: []string{"password", "passwd", "account"}, lines: true}}
	specNmcli     = []cliSpec{{flags: []string{"password", "wifi-sec.psk", "802-1x.password", "psk"}}}
	specWPA       = []cliSpec{{nth: 2}}
	specVault     = []cliSpec{{sub: "login", nth: 1}}
	specCF        = []cliSpec{{sub: "login", flags: []string{"-p"}}, {sub: "auth", nth: 2}}
	specAz        = []cliSpec{{sub: "login", flags: []string{"-p", "--password"}}, {sub: "secret", flags: []string{"--value"}}}
	specGH        = []cliSpec{{sub: "secret", flags: []string{"-b", "--body"}}}
	specAWS       = []cliSpec{{sub: "put-parameter", flags: []string{"--value"}}, {sub: "put-secret-value", flags: []string{"--secret-string"}},
		{sub: "create-secret", flags: []string{"--secret-string"}}}
	specSecrets = []cliSpec{{sub: "secrets", assign: true}, {sub: "config:set", assign: true}, {sub: "variables", assign: true}}
	specKubectl = []cliSpec{{sub: "secret", flags: []string{"--from-literal"}}}
	specUseradd = []cliSpec{{flags: []string{"-p", "--password"}}}
	specInflux  = []cliSpec{{flags: []string{"-t", "-p", "-password"}}}
	specCookieB = []cliSpec{{flags: []string{"-b", "-C", "--cookie", "-H"}}}
	specRedis   = []cliSpec{{flags: []string{"-a", "--pass", "--user"}}}
	specMySQL   = []cliSpec{{flags: []string{"-p"}, glued: true}}
	specSshpass = []cliSpec{{flags: []string{"-p"}, glued: true}}
)

// cliSpecs returns how cmd, a command's base name in lower case, takes a
// password, or nil.
func cliSpecs(cmd string) []cliSpec {
	switch cmd {
	case "docker", "podman", "buildah", "skopeo", "nerdctl", "finch", "oras", "crane", "helm", "regctl", "cosign", "oc", "argocd":
		return specRegistryLogin
	case "az":
		return specAz
	case "cf":
		return specCF
	case "mongosh", "mongo", "mongodump", "mongorestore", "mongoexport", "mongoimport", "mongostat", "mongotop", "mongofiles", "cqlsh":
		return specMongo
	case "ldapsearch", "ldapmodify", "ldapadd", "ldapdelete", "ldapwhoami", "ldapcompare", "ldapmodrdn", "ldapexop", "ldapurl", "vsql":
		return specLDAP
	case "ldappasswd":
		return specLDAPPasswd
	case "sqlcmd", "bcp", "osql", "isql", "mssql-cli", "mosquitto_pub", "mosquitto_sub", "mosquitto_rr", "ipmitool":
		return specCapitalP
	case "psexec", "psexec.py", "paexec", "crackmapexec", "cme", "nxc", "netexec", "evil-winrm", "rdesktop", "hydra", "medusa",
		"smbmap", "racadm", "twine", "poetry", "hdbsql", "ncftp", "ncftpget", "ncftpput", "cockroach", "clickhouse-client":
		return specSmallP
	case "sshpass":
		return specSshpass
	case "mysql", "mysqldump", "mysqladmin", "mysqlimport", "mysqlshow", "mysqlcheck", "mysqlsh", "mariadb", "mariadb-dump":
		return specMySQL
	case "7z", "7za", "7zr", "unrar":
		return specSmallPGlued
	case "rar":
		return specRar
	case "zip", "unzip", "zipcloak":
		return specZip
	case "ssh-keygen":
		return specSSHKeygen
	case "xfreerdp", "xfreerdp3", "wlfreerdp", "sdl-freerdp":
		return specFreeRDP
	case "cmdkey", "schtasks", "wmic", "runas", "psexec.exe":
		return specWindows
	case "openssl":
		return specOpenSSL
	case "keytool", "jarsigner":
		return specKeytool
	case "apksigner":
		return specApksigner
	case "snmpwalk", "snmpget", "snmpset", "snmpbulkwalk", "snmpbulkget", "snmptrap", "snmptable", "snmpgetnext":
		return specSNMP
	case "curl":
		return specCurl
	case "http", "https", "xh", "xhs", "httpie", "curlie":
		return specHTTPie
	case "smbclient", "rpcclient", "smbcacls", "smbget", "smbtree", "winexe", "smbclient.py", "mount.cifs":
		return specSMB
	case "net":
		return specNetUser
	case "lftp":
		return specLftp
	case "sqlplus", "sqlldr", "expdp", "impdp", "exp", "imp", "rman", "dgmgrl", "tkprof":
		return specOracle
	case "db2":
		return specDB2
	case "machine":
		return specNetrc
	case "default":
		return specNetrcDflt
	case "nmcli", "wpa_cli":
		return specNmcli
	case "wpa_passphrase":
		return specWPA
	case "vault", "bao":
		return specVault
	case "gh":
		return specGH
	case "aws":
		return specAWS
	case "flyctl", "fly", "heroku", "railway", "doppler", "dokku":
		return specSecrets
	case "kubectl", "oc.exe", "kubectl.exe":
		return specKubectl
	case "useradd", "usermod":
		return specUseradd
	case "influx":
		return specInflux
	case "ffuf", "wfuzz", "ab", "gobuster":
		return specCookieB
	case "redis-cli", "valkey-cli", "keydb-cli":
		return specRedis
	}
	return nil
}

// htpasswd -b takes its password after the file and the user (after the
// user alone with -n): argvState counts for it by hand.
const cmdHtpasswd = "htpasswd"

// isShellWrapper: words that run the command after them (sudo docker ...).
func isShellWrapper(cmd string) bool {
	switch cmd {
	case "sudo", "doas", "env", "time", "nohup", "exec", "command", "xargs", "winpty", "nice", "run", "!", "$":
		return true
	}
	return false
}

// argvState reads a command line's words one at a time.
type argvState struct {
	cmd     string
	specs   []cliSpec
	words   int    // words read, the command included
	subSeen uint16 // bit i: specs[i].sub was seen
	nth     [4]int // per spec: words past sub that are no flag
	pending int    // the next word is hidden: 1 whole, 2 after sep
	sep     byte
	htFlags string // htpasswd's flags cluster
	htNth   int
}

// known reports whether the words read are a command line of a command
// with a cliSpec (or htpasswd).
func (a *argvState) known() bool { return a.specs != nil || a.cmd == cmdHtpasswd }

// maxSpecs bounds a command's specs (subSeen's and nth's size).
const maxSpecs = 4

// reset forgets the command: a shell separator (;, &&, |) ends it.
func (a *argvState) reset() { *a = argvState{} }

// word reads the next word w and returns the part of it to hide, [from,
// to), or from == to when nothing is.
func (a *argvState) word(w string) (from, to int) {
	a.words++
	if a.pending != 0 {
		p, sep := a.pending, a.sep
		a.pending = 0
		if p == 1 || sep == 0 {
			return 0, len(w)
		}
		if i := strings.IndexByte(w, sep); i >= 0 {
			return i + 1, len(w)
		}
		return 0, len(w)
	}
	if a.cmd == "" || isShellWrapper(a.cmd) {
		if a.cmd != "" && (strings.HasPrefix(w, "-") || strings.IndexByte(w, '=') > 0) {
			return 0, 0 // sudo -E, env A=B
		}
		a.setCommand(w)
		return 0, 0
	}
	// A credential-named flag takes any command's next word (--password,
	// --api-key, -token).
	if isCredentialFlagName(w) {
		a.pending = 1
		return 0, 0
	}
	if a.cmd == cmdHtpasswd {
		return a.htpasswdWord(w)
	}
	flag := len(w) > 1 && (w[0] == '-' || w[0] == '/')
	for i := range a.specs {
		sp := &a.specs[i]
		if sp.sub != "" && a.subSeen&(1<<i) == 0 {
			if strings.EqualFold(w, sp.sub) {
				a.subSeen |= 1 << i
			}
			continue
		}
		if from, to, ok := a.specWord(sp, i, w, flag); ok {
			return from, to
		}
	}
	return 0, 0
}

// specWord applies one spec (the ith) to w, a flag or not.
func (a *argvState) specWord(sp *cliSpec, i int, w string, flag bool) (from, to int, ok bool) {
	for _, f := range sp.flags {
		if len(w) == len(f) && hasPrefixCaseFor(w, f) {
			if f[len(f)-1] == ':' {
				return 0, 0, false // /p: alone: nothing glued
			}
			a.pending = 1
			return 0, 0, true
		}
		if len(w) > len(f) && hasPrefixCaseFor(w, f) {
			switch {
			case f[len(f)-1] == ':' || (len(f) > 2 && w[len(f)] == '='):
				return len(f) + btoi(w[len(f)] == '='), len(w), true
			case sp.glued && len(f) == 2:
				return len(f), len(w), true
			}
		}
	}
	for _, f := range sp.userFlags {
		if w == f {
			a.pending, a.sep = 2, sp.sep
			return 0, 0, true
		}
		if len(w) > len(f)+1 && strings.HasPrefix(w, f) && (w[len(f)] == '=' || len(f) == 2) {
			v := len(f) + btoi(w[len(f)] == '=')
			if k := strings.IndexByte(w[v:], sp.sep); k >= 0 {
				return v + k + 1, len(w), true
			}
			return v, len(w), true
		}
	}
	if sp.assign && !flag {
		if eq := strings.IndexByte(w, '='); eq > 0 {
			return eq + 1, len(w), true
		}
	}
	if sp.slash && !flag {
		w2, off := w, 0
		if eq := strings.IndexByte(w, '='); eq >= 0 { // userid=scott/tiger
			w2, off = w[eq+1:], eq+1
		}
		if from, to := slashPassword(w2); to > from {
			return off + from, off + to, true
		}
	}
	if sp.nth > 0 && !flag && i < len(a.nth) && (sp.sub == "" || a.subSeen&(1<<i) != 0) && strings.IndexByte(w, '=') < 0 {
		a.nth[i]++
		if a.nth[i] == sp.nth {
			return 0, len(w), true
		}
	}
	return 0, 0, false
}

// hasPrefixCaseFor: a dash flag as written (-p is not -P); others (/p:,
// USING, password) in any case.
func hasPrefixCaseFor(w, f string) bool {
	if f[0] != '-' {
		return hasPrefixFold(w, strings.ToLower(f))
	}
	return strings.HasPrefix(w, f)
}

// slashPassword returns where the password of user/password@db or
// user/password is in w, or from == to.
func slashPassword(w string) (from, to int) {
	sl := strings.IndexByte(w, '/')
	if sl <= 0 || strings.Contains(w, "://") {
		return 0, 0
	}
	for i := 0; i < sl; i++ {
		if c := w[i]; !isAlnum(c) && c != '_' && c != '$' && c != '#' && c != '"' {
			return 0, 0
		}
	}
	end := strings.LastIndexByte(w, '@')
	if end < sl {
		end = len(w)
	}
	if end <= sl+1 {
		return 0, 0
	}
	return sl + 1, end
}

// htpasswdWord: htpasswd -b[flags] [file] user password.
func (a *argvState) htpasswdWord(w string) (from, to int) {
	if len(w) > 1 && w[0] == '-' {
		a.htFlags += w[1:]
		return 0, 0
	}
	if !strings.ContainsRune(a.htFlags, 'b') {
		return 0, 0
	}
	a.htNth++
	want := 3
	if strings.ContainsRune(a.htFlags, 'n') {
		want = 2
	}
	if a.htNth == want {
		return 0, len(w)
	}
	return 0, 0
}

// setCommand makes w, a word that starts a command, the command.
func (a *argvState) setCommand(w string) {
	w = strings.Trim(w, `"'`)
	base := strings.ToLower(path.Base(strings.ReplaceAll(w, `\`, "/")))
	base = strings.TrimSuffix(base, ".exe")
	a.cmd = base
	if base == cmdHtpasswd {
		return
	}
	a.specs = cliSpecs(base)
	if len(a.specs) > maxSpecs {
		a.specs = a.specs[:maxSpecs]
	}
}

// isCredentialFlagName reports whether w is a flag whose next word is a
// credential: --password, -token, --db-pass.
func isCredentialFlagName(w string) bool {
	if len(w) < 2 || w[0] != '-' || strings.ContainsAny(w, "= ") {
		return false
	}
	name := strings.TrimLeft(w, "-")
	return name != "" && (IsCredentialName(name) || IsCredentialListName(name))
}

// maxCommandLine bounds the bytes of one command line the text scanner
// reads after a command's name.
const maxCommandLine = 4096

// commandAt reads the command line whose command name was found at s[i:j]
// (a keyword of kindCommand), marks its passwords and returns where the
// scan of commands may resume. Words are separated by blanks (a backslash
// before a line break continues the line); quotes group words; ;, &&, ||
// and | end a command, and a known command's name starts another.
func (t *textScan) commandAt(i, j int) int {
	s := t.s
	if i > 0 && !isCommandStart(s[i-1]) {
		return j
	}
	// The word the keyword begins (mongo: mongosh); a path's later part
	// (/opt/mongodb/bin/mongosh) is looked at from its own keyword.
	k := j
	for k < len(s) && k-i < 40 && !isSpace(s[k]) && strings.IndexByte(";|&)`\"'/\\", s[k]) < 0 {
		k++
	}
	if k >= len(s) || (s[k] != ' ' && s[k] != '\t') || !isCommandName(strings.ToLower(s[i:k])) {
		return j
	}
	var a argvState
	limit := min(len(s), i+maxCommandLine)
	p := i
	for p < limit {
		// Blanks, and a backslash before a line break.
		for p < limit && (s[p] == ' ' || s[p] == '\t' || (s[p] == '\\' && p+1 < limit && (s[p+1] == '\n' || s[p+1] == '\r'))) {
			if s[p] == '\\' {
				p++
				for p < limit && (s[p] == '\r' || s[p] == '\n') {
					p++
				}
				continue
			}
			p++
		}
		if p < limit && (s[p] == '\n' || s[p] == '\r') && len(a.specs) > 0 && a.specs[0].lines {
			// A .netrc entry goes on past line breaks, up to a blank line.
			k, breaks := p, 0
			for ; k < limit && (s[k] == '\r' || s[k] == '\n' || s[k] == ' ' || s[k] == '\t'); k++ {
				if s[k] == '\n' {
					if breaks++; breaks == 2 {
						break
					}
				}
			}
			if breaks < 2 {
				p = k
				continue
			}
		}
		if p >= limit || s[p] == '\n' || s[p] == '\r' {
			break
		}
		if c := s[p]; c == ';' || c == '|' || c == '&' || c == ')' || c == '`' {
			a.reset()
			p++
			continue
		}
		// One word: its text's parts, unquoted, and where each is.
		start := p
		var parts []span
		for p < limit && !isSpace(s[p]) && strings.IndexByte(";|&)`", s[p]) < 0 {
			if q := s[p]; q == '"' || q == '\'' {
				k := p + 1
				for k < limit && s[k] != q && s[k] != '\n' {
					k++
				}
				parts = append(parts, span{p + 1, k})
				p = min(k+1, limit)
				continue
			}
			k := p
			for k < limit && !isSpace(s[k]) && strings.IndexByte(";|&)`\"'", s[k]) < 0 {
				k++
			}
			parts = append(parts, span{p, k})
			p = k
		}
		if p == start {
			p++
			continue
		}
		var w string
		if len(parts) == 1 {
			w = s[parts[0].start:parts[0].end]
		} else {
			var b strings.Builder
			for _, sp := range parts {
				b.WriteString(s[sp.start:sp.end])
			}
			w = b.String()
		}
		if a.cmd != "" && !isShellWrapper(a.cmd) && isCommandName(strings.ToLower(w)) && a.pending == 0 {
			a.reset()
		}
		from, to := a.word(w)
		if to > from {
			t.markWordPart(parts, from, to)
		}
	}
	return p
}

// markWordPart marks [from, to) of a word made of the text's parts.
func (t *textScan) markWordPart(parts []span, from, to int) {
	off := 0
	for _, sp := range parts {
		n := sp.end - sp.start
		lo, hi := max(from, off), min(to, off+n)
		if lo < hi {
			t.mark(sp.start+lo-off, sp.start+hi-off)
		}
		off += n
	}
}

// isCommandStart: what may stand before a command's name (a path's '/', a
// shell's $( or quote, a prompt's space).
func isCommandStart(c byte) bool {
	return isSpace(c) || strings.IndexByte("/\\;&|(`'\"$=>", c) >= 0
}

// isCommandName reports whether name (lower case) is a command the text
// scanner reads: one with a cliSpec, or htpasswd.
func isCommandName(name string) bool {
	name = strings.TrimSuffix(name, ".exe")
	return name == cmdHtpasswd || cliSpecs(name) != nil
}

// commandKeywords are the names commandAt is called at.
var commandKeywords = []string{
	"docker", "podman", "buildah", "skopeo", "nerdctl", "finch", "oras", "crane", "helm", "regctl", "cosign", "oc", "argocd",
	"az", "cf", "mongo", "cqlsh", "ldap", "vsql", "sqlcmd", "bcp", "osql", "isql", "mssql-cli", "mosquitto_", "ipmitool",
	"psexec", "paexec", "crackmapexec", "cme", "nxc", "netexec", "evil-winrm", "rdesktop", "hydra", "medusa", "smbmap",
	"racadm", "twine", "poetry", "hdbsql", "ncftp", "cockroach", "clickhouse-client", "sshpass", "mysql", "mariadb",
	"7z", "unrar", "rar", "zip", "unzip", "ssh-keygen", "xfreerdp", "wlfreerdp", "sdl-freerdp", "cmdkey", "schtasks", "wmic",
	"runas", "openssl", "keytool", "jarsigner", "apksigner", "snmp", "curl", "http", "xh", "curlie", "smb", "rpcclient",
	"winexe", "mount.cifs", "net", "lftp", "sqlplus", "sqlldr", "expdp", "impdp", "exp", "imp", "rman", "dgmgrl",
	"db2", "machine", "default", "nmcli", "wpa_", "vault", "bao", "gh", "aws", "fly", "heroku", "railway", "doppler",
	"dokku", "kubectl", "useradd", "usermod", "influx", "ffuf", "wfuzz", "ab", "gobuster", "redis-cli", "valkey-cli",
	"keydb-cli", "htpasswd", "tkprof",
}
