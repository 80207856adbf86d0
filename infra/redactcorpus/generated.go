package redactcorpus

import (
	crand "crypto/rand"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Generated entries: shapes whose values are drawn afresh in every run
// (seeded by Seed), so the redaction is held to a shape, not to the values
// a fixed file happens to hold. A failing test prints the seed
// (LogSeedOnFailure); REDACTCORPUS_SEED=<seed> repeats the run.

// SeedEnv names the environment variable that fixes the seed.
const SeedEnv = "REDACTCORPUS_SEED"

var (
	seedOnce sync.Once
	seed     uint64
)

// Seed returns this run's seed: REDACTCORPUS_SEED when set, else random.
func Seed() uint64 {
	seedOnce.Do(func() {
		if v, err := strconv.ParseUint(os.Getenv(SeedEnv), 10, 64); err == nil {
			seed = v
			return
		}
		var b [8]byte
		_, _ = crand.Read(b[:])
		seed = binary.LittleEndian.Uint64(b[:])
	})
	return seed
}

// SeedNote says how to repeat this run's values.
func SeedNote() string {
	return fmt.Sprintf("redactcorpus seed %d (%s=%d repeats this run's values)", Seed(), SeedEnv, Seed())
}

// LogSeedOnFailure logs SeedNote when t fails.
func LogSeedOnFailure(t testing.TB) {
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(SeedNote())
		}
	})
}

// gen draws the random parts of one entry.
type gen struct{ r *rand.Rand }

const (
	lowerChars = "abcdefghijklmnopqrstuvwxyz"
	upperChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	digitChars = "0123456789"
	alnumChars = lowerChars + upperChars + digitChars
	hexChars   = "0123456789abcdef"
	b64uChars  = alnumChars + "-_"
)

func (g gen) from(chars string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = chars[g.r.IntN(len(chars))]
	}
	return string(b)
}

// pw is a password: n letters and digits, a letter first and a digit in it.
func (g gen) pw(n int) string {
	s := []byte(g.from(upperChars, 1) + g.from(alnumChars, n-2) + g.from(digitChars, 1))
	return string(s)
}

// pwWith is pw with specials spread evenly inside it.
func (g gen) pwWith(n int, specials string) string {
	s := g.pw(n)
	var b strings.Builder
	step := len(s) / (len(specials) + 1)
	for i, c := range specials {
		b.WriteString(s[i*step : (i+1)*step])
		b.WriteRune(c)
	}
	b.WriteString(s[len(specials)*step:])
	return b.String()
}

// phrase is a password that does not look like a token: letters and
// symbols, no digit (Horse-battery.Staple!).
func (g gen) phrase() string {
	return g.from(upperChars, 1) + g.from(lowerChars, 5) + "-" + g.from(lowerChars, 6) + "." + g.from(upperChars, 1) + g.from(lowerChars, 4) + "!"
}

func (g gen) user() string { return g.from(lowerChars, 3+g.r.IntN(5)) }
func (g gen) host() string { return g.from(lowerChars, 4+g.r.IntN(6)) + ".example.com" }

// template is one generated shape: text or argv with {S} where the secret
// stands ({U}, {H}: a user, a host), the secret, and how it is written
// (plain, or an encoding whose output must not come back either).
type template struct {
	shape  string
	text   string
	argv   []string
	secret func(g gen) string
	encode func(s string) string
	split  bool // the secret's parts between URL delimiters must not come back either
	tail   int  // nor its last tail characters
}

// expand fills t's placeholders: the entry and its secret as planted.
func (t template) expand(g gen) Entry {
	secret := t.secret(g)
	planted := secret
	if t.encode != nil {
		planted = t.encode(secret)
	}
	repl := strings.NewReplacer("{S}", planted, "{U}", g.user(), "{H}", g.host(), "{N}", strconv.Itoa(1000+g.r.IntN(9000)))
	e := Entry{Shape: t.shape, Secret: planted}
	if t.tail > 0 {
		e.Parts = append(e.Parts, planted[len(planted)-t.tail:])
	}
	if t.split {
		for _, p := range strings.FieldsFunc(planted, func(r rune) bool { return strings.ContainsRune("#?/: @", r) }) {
			if len(p) >= 4 {
				e.Parts = append(e.Parts, p)
			}
		}
	}
	if t.argv != nil {
		for _, w := range t.argv {
			e.Argv = append(e.Argv, repl.Replace(w))
		}
		return e
	}
	e.Text = repl.Replace(t.text)
	return e
}

// Secrets of each kind.
var (
	pw12   = func(g gen) string { return g.pw(12 + g.r.IntN(8)) }
	phrase = func(g gen) string { return g.phrase() }
	b64u43 = func(g gen) string { return g.from(b64uChars, 42) + g.from(alnumChars, 1) }
	pwSpec = func(specials string) func(g gen) string {
		return func(g gen) string { return g.pwWith(12+g.r.IntN(6), specials) }
	}
	prefixed = func(prefix string, chars string, n int) func(g gen) string {
		return func(g gen) string { return prefix + g.from(chars, n-1) + g.from(digitChars, 1) }
	}
)

// Encodings of a credential written in escape sequences: each encodes
// "DB_PASSWORD=" too, planted before the secret's encoding.
func escapeEach(format string) func(string) string {
	return func(s string) string {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			fmt.Fprintf(&b, format, s[i])
		}
		return b.String()
	}
}

var (
	escX      = escapeEach(`\x%02x`)
	escXX     = escapeEach(`\\x%02x`)
	escU      = escapeEach(`\u%04x`)
	escOctal  = escapeEach(`\%03o`)
	escPct    = escapeEach(`%%%02X`)
	escHTMLx  = escapeEach(`&#x%x;`)
	escHTMLd  = escapeEach(`&#%d;`)
	escXBrace = escapeEach(`\x{%x}`)
	escCArray = func(s string) string {
		parts := make([]string, len(s))
		for i := 0; i < len(s); i++ {
			parts[i] = fmt.Sprintf("0x%02x", s[i])
		}
		return strings.Join(parts, ", ")
	}
)

// templates are the generated shapes: passwords after command-line flags
// (in text and as argv arrays), .netrc and .pgpass lines, cookies on
// command lines, DSN passwords holding URL delimiters, credentials split
// across JSON (pairs in arrays, CloudFormation parameters, tuples), JSON
// Web Keys' private members, escaped text, webhook URLs, vault and
// platform token prefixes, and credential names of configuration files.
var templates = []template{
	// Passwords after command-line flags.
	{shape: "cli: docker login -p", text: "docker login -u {U} -p {S} registry.example.com", secret: pw12},
	{shape: "cli: podman login -p", text: "podman login --username {U} -p {S} quay.io", secret: pw12},
	{shape: "cli: helm registry login -p", text: "helm registry login ghcr.io -u {U} -p {S}", secret: pw12},
	{shape: "cli: sudo docker login -p", text: "sudo docker login -u {U} -p {S}", secret: pw12},
	{shape: "cli: docker login -p, continued lines", text: "docker login \\\n  -u {U} \\\n  -p {S} \\\n  registry.example.com", secret: pw12},
	{shape: "cli: a command after &&", text: "cd /srv && mongosh mongodb://{H}/app -u {U} -p {S}", secret: pw12},
	{shape: "cli: az login -p", text: "az login -u {U}@example.com -p {S}", secret: pw12},
	{shape: "cli: mongosh -p", text: "mongosh \"mongodb://{H}:27017/app\" --username {U} -p {S}", secret: pw12},
	{shape: "cli: mongodump -p", text: "mongodump --host {H} -u {U} -p {S} --out /backup", secret: pw12},
	{shape: "cli: cqlsh -p", text: "cqlsh {H} -u {U} -p {S}", secret: pw12},
	{shape: "cli: ldapsearch -w", text: "ldapsearch -x -H ldap://{H} -D cn=admin,dc=example,dc=com -w {S} -b dc=example,dc=com", secret: pw12},
	{shape: "cli: ldapmodify -w glued", text: "ldapmodify -x -D cn=admin,dc=example -w{S} -f change.ldif", secret: pw12},
	{shape: "cli: ldappasswd -s", text: "ldappasswd -x -D cn=admin,dc=example -W -s {S} uid={U},dc=example", secret: pw12},
	{shape: "cli: htpasswd -b", text: "htpasswd -b /etc/nginx/.htpasswd {U} {S}", secret: pw12},
	{shape: "cli: htpasswd -nbB", text: "htpasswd -nbB {U} {S}", secret: pw12},
	{shape: "cli: htpasswd -cb", text: "htpasswd -cb .htpasswd {U} {S}", secret: pw12},
	{shape: "cli: http -a user:password", text: "http -a {U}:{S} GET https://{H}/api", secret: pw12},
	{shape: "cli: xh -a user:password", text: "xh -a {U}:{S} https://{H}/v1/me", secret: pw12},
	{shape: "cli: smbclient -U user%password", text: "smbclient //{H}/share -U {U}%{S}", secret: pw12},
	{shape: "cli: rpcclient -U user%password", text: "rpcclient -U \"{U}%{S}\" {H}", secret: pw12},
	{shape: "cli: sqlplus user/password@db", text: "sqlplus {U}/{S}@{H}:1521/ORCL", secret: pw12},
	{shape: "cli: sqlplus -S user/password", text: "sqlplus -S {U}/{S} @report.sql", secret: pw12},
	{shape: "cli: expdp user/password@db", text: "expdp {U}/{S}@PROD schemas=app directory=dp dumpfile=app.dmp", secret: pw12},
	{shape: "cli: rman target user/password@db", text: "rman target sys/{S}@PROD", secret: pw12},
	{shape: "cli: exp userid=user/password", text: "exp userid={U}/{S} file=app.dmp", secret: pw12},
	{shape: "cli: sqlcmd -P", text: "sqlcmd -S {H} -U sa -P {S} -Q \"select 1\"", secret: pw12},
	{shape: "cli: bcp -P", text: "bcp app.dbo.t out t.dat -S {H} -U {U} -P {S} -c", secret: pw12},
	{shape: "cli: mosquitto_pub -P", text: "mosquitto_pub -h {H} -u {U} -P {S} -t a/b -m hi", secret: pw12},
	{shape: "cli: ipmitool -P", text: "ipmitool -I lanplus -H {H} -U admin -P {S} power status", secret: pw12},
	{shape: "cli: 7z -p glued", text: "7z a -p{S} -mhe=on backup.7z data/", secret: pw12},
	{shape: "cli: zip -P", text: "zip -r -P {S} out.zip dir", secret: pw12},
	{shape: "cli: unrar -p glued", text: "unrar x -p{S} archive.rar", secret: pw12},
	{shape: "cli: ssh-keygen -N", text: "ssh-keygen -t ed25519 -N {S} -f ~/.ssh/id_deploy", secret: pw12},
	{shape: "cli: openssl -passin", text: "openssl rsa -in k.pem -passin {S} -out plain.pem", secret: pw12},
	{shape: "cli: openssl enc -k", text: "openssl enc -aes-256-cbc -k {S} -in a -out a.enc", secret: pw12},
	{shape: "cli: keytool -storepass", text: "keytool -list -keystore ks.jks -storepass {S}", secret: pw12},
	{shape: "cli: jarsigner -keypass", text: "jarsigner -keystore ks.jks -keypass {S} app.jar alias", secret: pw12},
	{shape: "cli: snmpwalk -A", text: "snmpwalk -v3 -l authPriv -u {U} -a SHA -A {S} {H}", secret: pw12},
	{shape: "cli: xfreerdp /p:", text: "xfreerdp /v:{H} /u:{U} /p:{S} /cert:ignore", secret: pw12},
	{shape: "cli: schtasks /RP", text: "schtasks /Create /TN job /TR run.bat /RU {U} /RP {S}", secret: pw12},
	{shape: "cli: lftp -u user,password", text: "lftp -u {U},{S} ftp://{H}", secret: pw12},
	{shape: "cli: cf login -p", text: "cf login -a https://api.{H} -u {U} -p {S}", secret: pw12},
	{shape: "cli: oc login -p", text: "oc login https://{H}:6443 -u {U} -p {S}", secret: pw12},
	{shape: "cli: vault login TOKEN", text: "vault login {S}", secret: pw12},
	{shape: "cli: gh secret set --body", text: "gh secret set DEPLOY_KEY --body {S}", secret: pw12},
	{shape: "cli: aws ssm put-parameter --value", text: "aws ssm put-parameter --name /app/db --type SecureString --value {S}", secret: pw12},
	{shape: "cli: flyctl secrets set NAME=value", text: "flyctl secrets set STRIPE={S}", secret: pw12},
	{shape: "cli: heroku config:set NAME=value", text: "heroku config:set UPSTREAM={S} -a app", secret: pw12},
	{shape: "cli: kubectl --from-literal", text: "kubectl create secret generic app --from-literal=db={S}", secret: pw12},
	{shape: "cli: nmcli password", text: "nmcli dev wifi connect Office password {S}", secret: phrase},
	{shape: "cli: wpa_passphrase SSID password", text: "wpa_passphrase Office {S}", secret: pw12},
	{shape: "cli: psexec -p", text: "psexec \\\\{H} -u {U} -p {S} cmd", secret: pw12},
	{shape: "cli: evil-winrm -p", text: "evil-winrm -i {H} -u {U} -p {S}", secret: pw12},
	{shape: "cli: hydra -p", text: "hydra -l {U} -p {S} ssh://{H}", secret: pw12},
	{shape: "cli: net user NAME PASSWORD", text: "net user {U} {S} /add", secret: pw12},
	{shape: "cli: db2 connect using", text: "db2 connect to SAMPLE user {U} using {S}", secret: pw12},
	{shape: "cli: twine upload -p", text: "twine upload -u {U} -p {S} dist/*", secret: pw12},
	{shape: "cli: curl -E cert:password", text: "curl -E client.pem:{S} https://{H}/", secret: pw12},
	{shape: "cli: curl -b cookie", text: "curl -b 'sid={S}; theme=dark' https://{H}/account", secret: pw12},
	{shape: "cli: ffuf -b cookie", text: "ffuf -u https://{H}/FUZZ -w words.txt -b \"lang=en; sid={S}\"", secret: pw12},
	{shape: "cli: ab -C cookie", text: "ab -n 100 -C sid={S} https://{H}/", secret: pw12},
	// The same as JSON arrays of words.
	{shape: "argv: docker login -p", argv: []string{"docker", "login", "-u", "{U}", "-p", "{S}"}, secret: pw12},
	{shape: "argv: sudo podman login -p", argv: []string{"sudo", "podman", "login", "-p", "{S}", "quay.io"}, secret: pw12},
	{shape: "argv: htpasswd -b", argv: []string{"htpasswd", "-b", ".htpasswd", "{U}", "{S}"}, secret: pw12},
	{shape: "argv: smbclient -U user%password", argv: []string{"smbclient", "//{H}/share", "-U", "{U}%{S}"}, secret: pw12},
	{shape: "argv: sqlplus user/password@db", argv: []string{"sqlplus", "-S", "{U}/{S}@db"}, secret: pw12},
	{shape: "argv: http -a user:password", argv: []string{"http", "-a", "{U}:{S}", "https://{H}"}, secret: pw12},
	{shape: "argv: ldapsearch -w glued", argv: []string{"/usr/bin/ldapsearch", "-x", "-w{S}", "-b", "dc=x"}, secret: pw12},
	{shape: "argv: curl -b cookie", argv: []string{"curl", "-b", "sid={S}", "https://{H}"}, secret: pw12},
	{shape: "argv: 7z -p glued", argv: []string{"7z", "x", "-p{S}", "a.7z"}, secret: pw12},
	{shape: "argv: mongosh -p", argv: []string{"mongosh", "--host", "{H}", "-p", "{S}"}, secret: pw12},
	{shape: "argv: mysql -p glued", argv: []string{"mysql", "-u", "root", "-p{S}", "app"}, secret: pw12},
	// .netrc and .pgpass.
	{shape: "netrc: one line", text: "machine {H} login {U} password {S}", secret: phrase},
	{shape: "netrc: lines", text: "machine {H}\n  login {U}\n  password {S}\n", secret: phrase},
	{shape: "netrc: default entry", text: "default login {U} password {S}", secret: phrase},
	{shape: "netrc: account", text: "machine ftp.{H} login {U} account {S}", secret: pw12},
	{shape: "pgpass: a line", text: "{H}:5432:app:{U}:{S}", secret: pw12},
	{shape: "pgpass: wildcards", text: "*:*:*:{U}:{S}", secret: pw12},
	{shape: "pgpass: echoed to the file", text: "echo '{H}:6432:app:{U}:{S}' >> ~/.pgpass", secret: pw12},
	// DSN passwords holding URL delimiters.
	{shape: "dsn: password with #", text: "DATABASE_URL is postgres://{U}:{S}@{H}:5432/app", secret: pwSpec("#")},
	{shape: "dsn: password with ?", text: "connect to mysql://{U}:{S}@{H}/app now", secret: pwSpec("?")},
	{shape: "dsn: password with /", text: "amqp://{U}:{S}@{H}:5672/vhost", secret: pwSpec("/")},
	{shape: "dsn: password with :", text: "redis://{U}:{S}@{H}:6379/0", secret: pwSpec(":"), split: true},
	{shape: "dsn: password with a space", text: "mongodb://{U}:{S}@{H}/app?authSource=admin", secret: pwSpec(" ")},
	{shape: "dsn: password with every delimiter", text: "sqlserver://{U}:{S}@{H}:1433?database=app", secret: func(g gen) string { return g.pwWith(30, "#?/: @") }, split: true},
	{shape: "dsn: empty user", text: "rediss://:{S}@{H}:6380", secret: pwSpec("#/")},
	{shape: "dsn: oracle jdbc thin", text: "jdbc:oracle:thin:{U}/{S}@{H}:1521:ORCL", secret: pw12},
	// Credentials split across JSON and code.
	{shape: "pairs: [[name, value]] headers", text: `[["Accept", "application/json"], ["X-Api-Key", "{S}"]]`, secret: pw12},
	{shape: "pairs: [[Authorization, value]]", text: `{"headers": [["Authorization", "{S}"]]}`, secret: pw12},
	{shape: "pairs: a flat list of headers", text: `["Authorization", "{S}", "Accept", "text/plain"]`, secret: pw12},
	{shape: "pairs: CloudFormation parameters", text: `{"Parameters": [{"ParameterKey": "DbPassword", "ParameterValue": "{S}"}]}`, secret: pw12},
	{shape: "pairs: Elastic Beanstalk option settings", text: `[{"Namespace": "aws:elasticbeanstalk:application:environment", "OptionName": "API_TOKEN", "Value": "{S}"}]`, secret: pw12},
	{shape: "pairs: label and value", text: `{"fields": [{"label": "Password", "value": "{S}"}]}`, secret: pw12},
	{shape: "pairs: a Python tuple", text: `data = [("username", "{U}"), ("password", "{S}")]`, secret: pw12},
	{shape: "pairs: setenv call", text: `os.Setenv("DB_PASSWORD", "{S}")`, secret: pw12},
	{shape: "pairs: header set call", text: `req.headers.set("X-Api-Key", "{S}")`, secret: pw12},
	// JSON Web Keys.
	{shape: "jwk: EC private d", text: `{"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0","d":"{S}"}`, secret: b64u43},
	{shape: "jwk: OKP private d, d first", text: `{"d":"{S}","crv":"Ed25519","kty":"OKP","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}`, secret: b64u43},
	{shape: "jwk: RSA private parts", text: `{"kty":"RSA","n":"0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECP","e":"AQAB","p":"{S}"}`, secret: b64u43},
	{shape: "jwk: symmetric k", text: `{"keys":[{"kty":"oct","alg":"HS256","k":"{S}"}]}`, secret: b64u43},
	{shape: "jwk: a Python dict", text: `jwk = {'kty': 'EC', 'crv': 'P-256', 'd': '{S}'}`, secret: b64u43},
	// Escaped text.
	{shape: "escaped: \\x hex", text: `payload = "` + escX("DB_PASSWORD=") + `{S}"`, secret: pw12, encode: escX},
	{shape: "escaped: \\\\x hex", text: `"cmd": "` + escXX("password=") + `{S}"`, secret: pw12, encode: escXX},
	{shape: "escaped: \\u code points", text: `var s = "` + escU("api_key=") + `{S}";`, secret: pw12, encode: escU},
	{shape: "escaped: octal", text: `printf '` + escOctal("PASSWORD=") + `{S}'`, secret: pw12, encode: escOctal},
	{shape: "escaped: percent-encoding of every byte", text: `?q=` + escPct("secret=") + `{S}`, secret: pw12, encode: escPct},
	{shape: "escaped: HTML hex references", text: `<p>` + escHTMLx("token: ") + `{S}</p>`, secret: pw12, encode: escHTMLx},
	{shape: "escaped: HTML decimal references", text: `<p>` + escHTMLd("password=") + `{S}</p>`, secret: pw12, encode: escHTMLd},
	{shape: "escaped: \\x{..} hex", text: `my $s = "` + escXBrace("passwd=") + `{S}";`, secret: pw12, encode: escXBrace},
	{shape: "escaped: C array of bytes", text: `static const char k[] = {` + escCArray("DB_PASS=") + `, {S}};`, secret: pw12, encode: escCArray},
	// Webhook URLs.
	{shape: "webhook: Slack workflows", text: "curl -X POST https://hooks.slack.com/workflows/{S}", secret: func(g gen) string {
		return "T" + g.from(upperChars+digitChars, 8) + "/A" + g.from(upperChars+digitChars, 10) + "/" + g.from(digitChars, 18) + "/" + g.pw(32)
	}, tail: 12},
	{shape: "webhook: Discord", text: "DISCORD_HOOK https://discord.com/api/webhooks/{S}", secret: func(g gen) string {
		return g.from(digitChars, 18) + "/" + g.from(b64uChars, 67) + "9"
	}},
	{shape: "webhook: Discord, discordapp and an API version", text: "post to https://discordapp.com/api/v10/webhooks/{S} done", secret: func(g gen) string {
		return g.from(digitChars, 19) + "/" + g.from(b64uChars, 67) + "7"
	}},
	{shape: "webhook: Microsoft Teams", text: "https://acme.webhook.office.com/webhookb2/{S}", secret: func(g gen) string {
		return g.from(hexChars, 8) + "-1234-4bcd-8ef0-" + g.from(hexChars, 12) + "@" + g.from(hexChars, 8) + "/IncomingWebhook/" + g.from(hexChars, 32)
	}},
	{shape: "webhook: Mattermost", text: "https://chat.{H}/hooks/{S}", secret: prefixed("", lowerChars+digitChars, 26)},
	{shape: "webhook: Zapier", text: "https://hooks.zapier.com/hooks/catch/{S}/", secret: func(g gen) string {
		return g.from(digitChars, 7) + "/" + g.from(lowerChars+digitChars, 6) + "1"
	}},
	{shape: "webhook: IFTTT", text: "https://maker.ifttt.com/trigger/deploy/with/key/{S}", secret: prefixed("", b64uChars, 22)},
	{shape: "webhook: PagerDuty integration", text: "https://events.pagerduty.com/integration/{S}/enqueue", secret: prefixed("", hexChars, 32)},
	{shape: "webhook: Feishu bot", text: "https://open.feishu.cn/open-apis/bot/v2/hook/{S}", secret: func(g gen) string {
		return g.from(hexChars, 8) + "-" + g.from(hexChars, 4) + "-4" + g.from(hexChars, 3) + "-8" + g.from(hexChars, 3) + "-" + g.from(hexChars, 11) + "1"
	}},
	{shape: "webhook: Azure Functions code", text: "https://app-{U}.azurewebsites.net/api/run?code={S}", secret: prefixed("", b64uChars, 40)},
	// Vault and platform token prefixes.
	{shape: "token: HashiCorp Vault hvs.", text: "VAULT_ADDR=https://{H} vault kv get app # with {S}", secret: prefixed("hvs.", alnumChars, 24)},
	{shape: "token: HashiCorp Vault hvb.", text: "batch {S} issued", secret: prefixed("hvb.AAAAAQ", b64uChars, 40)},
	{shape: "token: HashiCorp Vault hvr.", text: "recovery {S}", secret: prefixed("hvr.", alnumChars, 24)},
	{shape: "token: Tailscale auth key", text: "tailscale up with {S}", secret: prefixed("tskey-auth-", alnumChars, 30)},
	{shape: "token: Tailscale API key", text: "key {S} expires", secret: prefixed("tskey-api-", alnumChars, 30)},
	{shape: "token: Docker Hub PAT", text: "echo {S} | docker login -u {U} --password-stdin", secret: prefixed("dckr_pat_", b64uChars, 27)},
	{shape: "token: Supabase sbp_", text: "supabase link with {S}", secret: prefixed("sbp_", hexChars, 40)},
	{shape: "token: LangSmith lsv2_", text: "LANGCHAIN_PROJECT=app {S}", secret: prefixed("lsv2_pt_", hexChars, 42)},
	{shape: "token: Pinecone pcsk_", text: "pinecone init {S}", secret: prefixed("pcsk_", alnumChars, 60)},
	{shape: "token: Notion ntn_", text: "notion integration {S}", secret: prefixed("ntn_", alnumChars, 46)},
	{shape: "token: Grafana service account", text: "grafana {S}", secret: prefixed("glsa_", alnumChars, 41)},
	{shape: "token: Slack app-level xapp-", text: "socket mode with {S}", secret: prefixed("xapp-1-", upperChars+digitChars+"-", 40)},
	{shape: "token: Heroku HRKU-", text: "heroku {S}", secret: prefixed("HRKU-", b64uChars, 40)},
	{shape: "token: Doppler dp.st.", text: "doppler run with {S}", secret: prefixed("dp.st.prd.", alnumChars, 40)},
	{shape: "token: Terraform Cloud atlasv1", text: "terraform {S}", secret: func(g gen) string {
		return g.from(alnumChars, 14) + ".atlasv1." + g.from(alnumChars, 40) + "1"
	}},
	{shape: "token: PlanetScale password", text: "pscale {S}", secret: prefixed("pscale_pw_", alnumChars, 70)},
	{shape: "token: Figma figd_", text: "figma {S}", secret: prefixed("figd_", b64uChars, 40)},
	{shape: "token: Contentful CFPAT-", text: "contentful {S}", secret: prefixed("CFPAT-", b64uChars, 43)},
	{shape: "token: Bitbucket ATBB", text: "bitbucket {S}", secret: prefixed("ATBB", alnumChars, 32)},
	// Credential names of configuration files and wallets.
	{shape: "names: wpa_supplicant psk", text: "network={\n  ssid=\"Office\"\n  psk=\"{S}\"\n}", secret: pw12},
	{shape: "names: redis requirepass", text: "requirepass {S}", secret: pw12},
	{shape: "names: redis masterauth", text: "masterauth {S}", secret: pw12},
	{shape: "names: keystore storepass", text: "storepass={S}", secret: pw12},
	{shape: "names: a wallet's mnemonic", text: `{"mnemonic": "{S}"}`, secret: func(g gen) string {
		return g.from(lowerChars, 5) + " " + g.from(lowerChars, 6) + " " + g.from(lowerChars, 4) + " " + g.from(lowerChars, 7) + " " + g.pw(8)
	}},
	{shape: "names: AWS SecretString", text: `{"Name": "prod/db", "SecretString": "{S}"}`, secret: pw12},
	{shape: "names: --auth-cred", text: "sqlmap -u https://{H}/?id=1 --auth-type Basic --auth-cred {U}:{S}", secret: pw12},
}

// generated returns the templates' entries with values drawn from seed.
func generated(seed uint64) []Entry {
	g := gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	out := make([]Entry, 0, len(templates))
	for _, t := range templates {
		out = append(out, t.expand(g))
	}
	return out
}
