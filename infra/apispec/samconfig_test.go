package apispec_test

// samconfig.toml is checked against template.yaml the way `sam deploy` and
// CloudFormation would check it, before anyone deploys: every environment's
// parameter_overrides, read with the SAM CLI's quoting, must name parameters
// the template declares, with values their Type and constraints accept, and
// an environment that deploys must set every parameter without a Default.
//
// The values only an operator knows (the SES sender, the invitation link,
// the on-call address) are written as placeholders, "<...>". A placeholder
// is reported as "to fill", never as an error, and is accepted only when the
// template's constraints refuse it: a forgotten one then stops `sam deploy`
// at the change set, and no stack goes out with it.

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
	"github.com/dlclark/regexp2"
	"go.yaml.in/yaml/v3"
)

// cfnParameter is one of the template's Parameters: what CloudFormation
// checks a value against.
type cfnParameter struct {
	typ                  string
	hasDefault           bool
	minValue, maxValue   *float64
	minLength, maxLength *int
	allowedValues        []string
	allowedPattern       string
}

// templateParameters reads the Parameters of a template's top-level mapping.
func templateParameters(root *yaml.Node) (map[string]cfnParameter, error) {
	params := node(root, "Parameters")
	if params == nil || params.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("no Parameters mapping")
	}
	out := map[string]cfnParameter{}
	for _, name := range keys(params) {
		n := node(params, name)
		p := cfnParameter{hasDefault: node(n, "Default") != nil}
		var ok bool
		if p.typ, ok = literal(node(n, "Type")); !ok || p.typ == "" {
			return nil, fmt.Errorf("Parameters.%s: no literal Type", name)
		}
		for key, dst := range map[string]**float64{"MinValue": &p.minValue, "MaxValue": &p.maxValue} {
			if v := node(n, key); v != nil {
				f, err := strconv.ParseFloat(v.Value, 64)
				if err != nil {
					return nil, fmt.Errorf("Parameters.%s.%s: %v", name, key, err)
				}
				*dst = &f
			}
		}
		for key, dst := range map[string]**int{"MinLength": &p.minLength, "MaxLength": &p.maxLength} {
			if v := node(n, key); v != nil {
				i, err := strconv.Atoi(v.Value)
				if err != nil {
					return nil, fmt.Errorf("Parameters.%s.%s: %v", name, key, err)
				}
				*dst = &i
			}
		}
		if v := node(n, "AllowedValues"); v != nil {
			if v.Kind != yaml.SequenceNode {
				return nil, fmt.Errorf("Parameters.%s.AllowedValues: not a list", name)
			}
			for _, c := range v.Content {
				p.allowedValues = append(p.allowedValues, c.Value)
			}
		}
		p.allowedPattern, _ = literal(node(n, "AllowedPattern"))
		out[name] = p
	}
	return out, nil
}

// cfnNumber is what this check takes for a Number: an integer or a decimal.
var cfnNumber = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)

// refusal says why CloudFormation refuses value for p, or "" when it takes
// it. String and AWS-specific types (which name account resources this check
// cannot look up) are strings; a list type's constraints apply to each
// element; MinLength and MaxLength apply to a String.
func (p cfnParameter) refusal(value string) string {
	elements := []string{value}
	number := false
	switch {
	case p.typ == "String" || strings.HasPrefix(p.typ, "AWS::"):
	case p.typ == "Number":
		number = true
	case p.typ == "List<Number>":
		number = true
		elements = strings.Split(value, ",")
	case p.typ == "CommaDelimitedList" || strings.HasPrefix(p.typ, "List<AWS::"):
		elements = strings.Split(value, ",")
	default:
		return fmt.Sprintf("Type %s is not one this check knows", p.typ)
	}
	if p.typ == "String" {
		if p.minLength != nil && utf8.RuneCountInString(value) < *p.minLength {
			return fmt.Sprintf("shorter than MinLength %d", *p.minLength)
		}
		if p.maxLength != nil && utf8.RuneCountInString(value) > *p.maxLength {
			return fmt.Sprintf("longer than MaxLength %d", *p.maxLength)
		}
	}
	for _, e := range elements {
		if number {
			if !cfnNumber.MatchString(e) {
				return fmt.Sprintf("%q is not a number", e)
			}
			f, _ := strconv.ParseFloat(e, 64)
			if p.minValue != nil && f < *p.minValue {
				return fmt.Sprintf("%s is below MinValue %v", e, *p.minValue)
			}
			if p.maxValue != nil && f > *p.maxValue {
				return fmt.Sprintf("%s is above MaxValue %v", e, *p.maxValue)
			}
		} else if p.allowedPattern != "" {
			if ok, err := matchesWhole(p.allowedPattern, e); err != nil {
				return fmt.Sprintf("AllowedPattern %s: %v", p.allowedPattern, err)
			} else if !ok {
				return fmt.Sprintf("%q does not match AllowedPattern %s", e, p.allowedPattern)
			}
		}
		if len(p.allowedValues) > 0 && !slices.ContainsFunc(p.allowedValues, func(a string) bool {
			return a == e || number && sameNumber(a, e)
		}) {
			return fmt.Sprintf("%q is not one of AllowedValues %q", e, p.allowedValues)
		}
	}
	return ""
}

// matchesWhole reports whether pattern, a CloudFormation AllowedPattern (a
// Java regular expression, lookarounds included, which Go's regexp lacks),
// matches all of value, as CloudFormation requires.
func matchesWhole(pattern, value string) (bool, error) {
	re, err := regexp2.Compile(`\A(?:`+pattern+`)\z`, regexp2.None)
	if err != nil {
		return false, err
	}
	return re.MatchString(value)
}

func sameNumber(a, b string) bool {
	fa, errA := strconv.ParseFloat(a, 64)
	fb, errB := strconv.ParseFloat(b, 64)
	return errA == nil && errB == nil && fa == fb
}

// The SAM CLI's grammar of parameter_overrides (samcli/cli/types.py,
// CfnParameterOverridesType): space-separated Key=Value pairs, or
// ParameterKey=Key,ParameterValue=Value pairs, a value bare or in double or
// single quotes, with \ escaping the next character.
const (
	samKey   = `([A-Za-z0-9"']+)`
	samValue = `("(?:\\.|[^"\\]+)*"|'(?:\\.|[^'\\]+)*'|(?:\\.|[^ "\\]+)+)`
)

var (
	samLongPair  = regexp.MustCompile(`ParameterKey=` + samKey + `,ParameterValue=` + samValue)
	samShortPair = regexp.MustCompile(` ` + samKey + `=` + samValue)
)

// samUnquote removes a value's wrapping quotes and unescapes \ , \" and \',
// as the SAM CLI does.
func samUnquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		s = s[1 : len(s)-1]
	}
	return strings.NewReplacer(`\ `, " ", `\"`, `"`, `\'`, "'").Replace(s)
}

// override is one Key=Value of a parameter_overrides.
type override struct{ name, value string }

// parseOverrides reads one parameter_overrides string as the SAM CLI does,
// and returns what it reads. The SAM CLI skips text its pattern does not
// match and lets a repeated key's last value win; here either is also an
// error, since an operator never means it.
func parseOverrides(s string) ([]override, error) {
	text := " " + strings.TrimSpace(s)
	re := samShortPair
	if samLongPair.MatchString(text) {
		re = samLongPair
	}
	var out []override
	var errs []error
	skipped := func(from, to int) {
		if rest := strings.TrimSpace(text[from:to]); rest != "" {
			errs = append(errs, fmt.Errorf("the SAM CLI would skip %q", rest))
		}
	}
	end := 0
	for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
		skipped(end, m[0])
		end = m[1]
		name, value := samUnquote(text[m[2]:m[3]]), samUnquote(text[m[4]:m[5]])
		if i := slices.IndexFunc(out, func(o override) bool { return o.name == name }); i >= 0 {
			errs = append(errs, fmt.Errorf("%s is set twice (the SAM CLI keeps the last)", name))
			out = slices.Delete(out, i, i+1)
		}
		out = append(out, override{name, value})
	}
	skipped(end, len(text))
	return out, errors.Join(errs...)
}

// placeholder is how samconfig.toml writes a value only the operator knows.
var placeholder = regexp.MustCompile(`^<[^<>]+>$`)

// deployingCommands are the SAM CLI commands that create or update a stack:
// their environments must give every parameter without a Default.
var deployingCommands = []string{"deploy", "sync"}

// samEnvironment is one environment of a samconfig.toml: the commands it
// has settings for, and the parameter_overrides of those that set them.
type samEnvironment struct {
	name      string
	commands  []string
	overrides map[string][]override
}

// parseSamconfig reads a samconfig.toml. Overrides the SAM CLI would read
// differently from what they seem to say are returned as problems.
func parseSamconfig(raw string) (envs []samEnvironment, problems []string, err error) {
	var cfg map[string]any
	if _, err := toml.Decode(raw, &cfg); err != nil {
		return nil, nil, err
	}
	if v, _ := cfg["version"].(float64); v != 0.1 {
		return nil, nil, fmt.Errorf("version = %v, want 0.1 (the version the SAM CLI reads)", cfg["version"])
	}
	for _, name := range slices.Sorted(maps.Keys(cfg)) {
		if name == "version" {
			continue
		}
		table, ok := cfg[name].(map[string]any)
		if !ok {
			return nil, nil, fmt.Errorf("[%s] is not a table of commands", name)
		}
		env := samEnvironment{name: name, commands: slices.Sorted(maps.Keys(table)), overrides: map[string][]override{}}
		for _, cmd := range env.commands {
			command, _ := table[cmd].(map[string]any)
			settings, _ := command["parameters"].(map[string]any)
			value, ok := settings["parameter_overrides"]
			if !ok {
				continue
			}
			where := fmt.Sprintf("[%s.%s.parameters] parameter_overrides", name, cmd)
			// The SAM CLI takes a string, or a list of strings it reads one by one.
			texts, ok := value.([]any)
			if s, isString := value.(string); isString {
				texts, ok = []any{s}, true
			}
			if !ok {
				return nil, nil, fmt.Errorf("%s: a %T, want a string or a list of strings", where, value)
			}
			all := []override{}
			for _, text := range texts {
				s, ok := text.(string)
				if !ok {
					return nil, nil, fmt.Errorf("%s: %v is not a string", where, text)
				}
				o, err := parseOverrides(s)
				if err != nil {
					problems = append(problems, fmt.Sprintf("%s: %v", where, err))
				}
				all = append(all, o...)
			}
			env.overrides[cmd] = all
		}
		envs = append(envs, env)
	}
	return envs, problems, nil
}

// samconfigReport is what checkSamconfig found: problems stop a deployment;
// toFill are the placeholders an operator still has to replace.
type samconfigReport struct {
	problems, toFill []string
}

// checkSamconfig checks every parameter_overrides of every environment and
// command of a samconfig.toml against the template's parameters. A command
// without parameter_overrides of its own takes its environment's global
// one, as in the SAM CLI.
func checkSamconfig(params map[string]cfnParameter, raw string) (samconfigReport, error) {
	envs, problems, err := parseSamconfig(raw)
	if err != nil {
		return samconfigReport{}, err
	}
	r := samconfigReport{problems: problems}
	for _, env := range envs {
		for _, cmd := range slices.Sorted(maps.Keys(env.overrides)) {
			where := fmt.Sprintf("[%s.%s.parameters] parameter_overrides", env.name, cmd)
			for _, o := range env.overrides[cmd] {
				p, declared := params[o.name]
				switch {
				case !declared:
					r.problems = append(r.problems, fmt.Sprintf("%s: %s is not a parameter of the template", where, o.name))
				case placeholder.MatchString(o.value):
					if p.refusal(o.value) == "" {
						r.problems = append(r.problems, fmt.Sprintf("%s: %s=%q: the template accepts this placeholder, so a stack would go out with it", where, o.name, o.value))
					}
					r.toFill = append(r.toFill, fmt.Sprintf("[%s.%s] %s=%q", env.name, cmd, o.name, o.value))
				default:
					if why := p.refusal(o.value); why != "" {
						r.problems = append(r.problems, fmt.Sprintf("%s: %s=%q: %s", where, o.name, o.value, why))
					}
				}
			}
		}
		for _, cmd := range deployingCommands {
			if !slices.Contains(env.commands, cmd) {
				continue
			}
			effective, ok := env.overrides[cmd]
			if !ok {
				effective = env.overrides["global"]
			}
			for _, name := range slices.Sorted(maps.Keys(params)) {
				if !params[name].hasDefault && !slices.ContainsFunc(effective, func(o override) bool { return o.name == name }) {
					r.problems = append(r.problems, fmt.Sprintf("[%s] sam %s: %s has no Default and is not set (give its value, or a placeholder \"<...>\" for the operator)", env.name, cmd, name))
				}
			}
		}
	}
	return r, nil
}

// ---------------------------------------------------------------------------

// Every environment of samconfig.toml deploys as written once its
// placeholders are filled: each override names a parameter of the template
// with a value the template accepts, and every parameter without a Default
// is given. The placeholders left to the operator are listed in the log.
func TestSamconfigFitsTheTemplate(t *testing.T) {
	params, err := templateParameters(loadTemplate(t).root)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(samconfigPath)
	if err != nil {
		t.Fatal(err)
	}
	r, err := checkSamconfig(params, string(raw))
	if err != nil {
		t.Fatalf("samconfig.toml: %v", err)
	}
	for _, p := range r.problems {
		t.Errorf("samconfig.toml %s", p)
	}
	for _, f := range r.toFill {
		t.Logf("samconfig.toml: to fill before deploying: %s", f)
	}
}

// samconfigBefore is samconfig.toml (comments aside) when every deployment
// failed: AuthorizerCacheTtl="300" against the template's MaxValue of 60,
// and the operator's three values neither set nor marked to fill.
const samconfigBefore = `version = 0.1

[default.global.parameters]
stack_name = "workspace-api-shared"

[default.build.parameters]
build_in_source = true
cached = true
parallel = true

[default.validate.parameters]
lint = true

[default.deploy.parameters]
capabilities = "CAPABILITY_IAM"
confirm_changeset = true
fail_on_empty_changeset = false
resolve_s3 = true
region = "us-east-1"
tags = "service=\"workspace-api\" tenant=\"shared\""
parameter_overrides = "TenantName=\"shared\" Stage=\"v1\" AuthorizerCacheTtl=\"300\" ApiGatewayLogsRole=\"create\""

[default.local_start_api.parameters]
warm_containers = "EAGER"

[acme.global.parameters]
stack_name = "workspace-api-acme"

[acme.build.parameters]
build_in_source = true
cached = true
parallel = true

[acme.deploy.parameters]
capabilities = "CAPABILITY_IAM"
confirm_changeset = false
fail_on_empty_changeset = false
resolve_s3 = true
region = "eu-west-1"
tags = "service=\"workspace-api\" tenant=\"acme\""
parameter_overrides = "TenantName=\"acme\" Stage=\"v1\" AuthorizerCacheTtl=\"300\" TenantWorkspaceId=\"ws_acme\" ApiGatewayLogsRole=\"create\""
`

// The check refuses what `sam deploy` and CloudFormation refused, against
// the real template: the cache TTL above its maximum, and the parameters
// without a default left out, in every environment.
func TestSamconfigCheckRefusesTheFailingSamconfig(t *testing.T) {
	params, err := templateParameters(loadTemplate(t).root)
	if err != nil {
		t.Fatal(err)
	}
	r, err := checkSamconfig(params, samconfigBefore)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, env := range []string{"acme", "default"} {
		want = append(want, fmt.Sprintf(`[%s.deploy.parameters] parameter_overrides: AuthorizerCacheTtl="300": 300 is above MaxValue 60`, env))
		for _, name := range []string{"AlarmEmail", "InviteAcceptUrl", "MailFrom"} {
			want = append(want, fmt.Sprintf(`[%s] sam deploy: %s has no Default and is not set (give its value, or a placeholder "<...>" for the operator)`, env, name))
		}
	}
	if !slices.Equal(r.problems, want) {
		t.Errorf("problems:\n  got  %q\n  want %q", r.problems, want)
	}
	if len(r.toFill) != 0 {
		t.Errorf("to fill: got %q, want none (it named no placeholder)", r.toFill)
	}
}

// checkParameters stands in for a template's Parameters, with every Type
// and constraint CloudFormation checks.
const checkParameters = `
Parameters:
  Name:
    Type: String
    AllowedPattern: "^[a-z][a-z0-9-]*$"
    MinLength: 3
    MaxLength: 8
  Mail:
    Type: String
    AllowedPattern: '(?i)^(?!.*@example\.com$)[^@\s]+@[a-z0-9.-]+$'
  Free:
    Type: String
    Default: ""
  Ttl:
    Type: Number
    Default: 60
    MinValue: 0
    MaxValue: 60
  Days:
    Type: Number
    Default: 30
    AllowedValues: [1, 7, 30]
  Mode:
    Type: String
    Default: a
    AllowedValues: [a, b]
  Zones:
    Type: CommaDelimitedList
    Default: a
    AllowedValues: [a, b, c]
  Ports:
    Type: List<Number>
    Default: "80"
    MaxValue: 65535
  Vpc:
    Type: AWS::EC2::VPC::Id
    Default: vpc-1
    AllowedPattern: "^vpc-[0-9a-f]+$"
  Subnets:
    Type: List<AWS::EC2::Subnet::Id>
    Default: subnet-1
    AllowedPattern: "^subnet-[0-9a-f]+$"
`

func TestSamconfigCheckAppliesEveryConstraint(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(checkParameters), &doc); err != nil {
		t.Fatal(err)
	}
	params, err := templateParameters(doc.Content[0])
	if err != nil {
		t.Fatal(err)
	}
	const required = `Name="acme" Mail="ops@acme.io" `
	for _, tt := range []struct {
		name, overrides string
		want            string // the one problem expected, "" for none
	}{
		{"all valid", required + `Ttl="60" Days=7 Mode=b Zones="a,c" Ports="80,443" Vpc=vpc-0a Subnets="subnet-1,subnet-2"`, ""},
		{"unknown name", required + `Colour=red`, `Colour is not a parameter of the template`},
		{"not a number", required + `Ttl="soon"`, `Ttl="soon": "soon" is not a number`},
		{"above MaxValue", required + `Ttl="300"`, `Ttl="300": 300 is above MaxValue 60`},
		{"below MinValue", required + `Ttl="-1"`, `Ttl="-1": -1 is below MinValue 0`},
		{"number not allowed", required + `Days=31`, `Days="31": "31" is not one of AllowedValues ["1" "7" "30"]`},
		{"string not allowed", required + `Mode=c`, `Mode="c": "c" is not one of AllowedValues ["a" "b"]`},
		{"list element not allowed", required + `Zones="a,d"`, `Zones="a,d": "d" is not one of AllowedValues ["a" "b" "c"]`},
		{"list number above MaxValue", required + `Ports="80,70000"`, `Ports="80,70000": 70000 is above MaxValue 65535`},
		{"pattern", `Name="Acme" Mail="ops@acme.io"`, `Name="Acme": "Acme" does not match AllowedPattern ^[a-z][a-z0-9-]*$`},
		{"pattern with a lookahead", `Name="acme" Mail="ops@example.com"`, `Mail="ops@example.com": "ops@example.com" does not match AllowedPattern (?i)^(?!.*@example\.com$)[^@\s]+@[a-z0-9.-]+$`},
		{"too short", `Name="ab" Mail="ops@acme.io"`, `Name="ab": shorter than MinLength 3`},
		{"too long", `Name="abcdefghi" Mail="ops@acme.io"`, `Name="abcdefghi": longer than MaxLength 8`},
		{"AWS-specific type", required + `Vpc="sg-1"`, `Vpc="sg-1": "sg-1" does not match AllowedPattern ^vpc-[0-9a-f]+$`},
		{"AWS-specific list", required + `Subnets="subnet-1,vpc-1"`, `Subnets="subnet-1,vpc-1": "vpc-1" does not match AllowedPattern ^subnet-[0-9a-f]+$`},
		{"required missing", `Name="acme"`, `[t] sam deploy: Mail has no Default and is not set`},
		{"required as a placeholder", `Name="acme" Mail="<on-call address>"`, ""},
		{"a placeholder the template would take", required + `Free="<anything>"`, `the template accepts this placeholder`},
		{"what the SAM CLI would skip", required + `Ttl="60"junk`, `the SAM CLI would skip "junk"`},
		{"set twice", required + `Ttl=1 Ttl=2`, `Ttl is set twice`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			raw := "version = 0.1\n[t.deploy.parameters]\nparameter_overrides = " + strconv.Quote(tt.overrides) + "\n"
			r, err := checkSamconfig(params, raw)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.want == "" && len(r.problems) > 0:
				t.Errorf("problems %q, want none", r.problems)
			case tt.want != "" && (len(r.problems) != 1 || !strings.Contains(r.problems[0], tt.want)):
				t.Errorf("problems %q, want one containing %q", r.problems, tt.want)
			}
		})
	}

	t.Run("a deploy without overrides takes the global ones", func(t *testing.T) {
		raw := "version = 0.1\n[t.global.parameters]\nparameter_overrides = 'Name=\"acme\" Mail=\"<on-call address>\"'\n[t.deploy.parameters]\nregion = \"eu-west-1\"\n"
		r, err := checkSamconfig(params, raw)
		if err != nil || len(r.problems) > 0 || !slices.Equal(r.toFill, []string{`[t.global] Mail="<on-call address>"`}) {
			t.Errorf("got %+v, %v; want no problem and Mail to fill", r, err)
		}
	})
	t.Run("a list of strings", func(t *testing.T) {
		raw := "version = 0.1\n[t.deploy.parameters]\nparameter_overrides = ['Name=\"acme\"', 'Mail=\"ops@acme.io\" Ttl=61']\n"
		r, err := checkSamconfig(params, raw)
		if err != nil || len(r.problems) != 1 || !strings.Contains(r.problems[0], "above MaxValue") {
			t.Errorf("got %+v, %v; want Ttl refused", r, err)
		}
	})
}

// parameter_overrides is read as the SAM CLI reads it: quotes, escapes and
// both of its forms.
func TestParseOverridesReadsTheSamCLIsQuoting(t *testing.T) {
	for text, want := range map[string][]override{
		`A="x" B=y`:                     {{"A", "x"}, {"B", "y"}},
		`  A="two words"   B='single'`:  {{"A", "two words"}, {"B", "single"}},
		`A="say \"hi\"" B=a\ b`:         {{"A", `say "hi"`}, {"B", "a b"}},
		`A=""`:                          {{"A", ""}},
		`A="https://app.acme.io/x?y=1"`: {{"A", "https://app.acme.io/x?y=1"}},
		`ParameterKey=A,ParameterValue=x ParameterKey=B,ParameterValue="y z"`: {{"A", "x"}, {"B", "y z"}},
		``: nil,
	} {
		got, err := parseOverrides(text)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("parseOverrides(%s) = %q, %v; want %q", text, got, err, want)
		}
	}
	for _, text := range []string{`A="x" junk`, `A="unclosed`, `A=1 A=2`, `=x`} {
		if got, err := parseOverrides(text); err == nil {
			t.Errorf("parseOverrides(%s) = %q, want an error", text, got)
		}
	}
}
