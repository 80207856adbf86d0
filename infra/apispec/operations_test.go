package apispec_test

// Checks of what template.yaml and samconfig.toml hold for operating a
// deployment: alarms, the usage plan's key and the deployments' settings.

import (
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

const samconfigPath = repoRoot + "/samconfig.toml"

// alarmKey names what an alarm watches: a metric of one resource.
type alarmKey struct{ metric, resource string }

// simpleAlarms returns, for each AWS::CloudWatch::Alarm on one metric (not a
// metric math expression), the metric and the resource its one dimension
// refers to (!Ref or !GetAtt), mapped to the alarm's logical id.
func simpleAlarms(tpl *samTemplate) map[alarmKey]string {
	out := map[alarmKey]string{}
	for _, id := range tpl.resourceIDs("AWS::CloudWatch::Alarm") {
		metric, _ := literal(tpl.resourceNode(id, "Properties", "MetricName"))
		dims := tpl.resourceNode(id, "Properties", "Dimensions")
		if metric == "" || dims == nil || dims.Kind != yaml.SequenceNode || len(dims.Content) != 1 {
			continue
		}
		value := node(dims.Content[0], "Value")
		resource := refTarget(value)
		if r, _, ok := getAttTarget(value); ok {
			resource = r
		}
		out[alarmKey{metric, resource}] = id
	}
	return out
}

// Every function reports its failures and throttles, and every dead-letter
// queue its first message: a function or queue added later without its
// alarms fails here.
func TestEveryFunctionAndDeadLetterQueueHasItsAlarms(t *testing.T) {
	tpl := loadTemplate(t)
	alarms := simpleAlarms(tpl)
	var want []alarmKey
	for _, fn := range tpl.resourceIDs("AWS::Serverless::Function") {
		want = append(want, alarmKey{"Errors", fn}, alarmKey{"Throttles", fn})
	}
	for _, q := range tpl.resourceIDs("AWS::SQS::Queue") {
		if strings.HasSuffix(q, "DeadLetterQueue") {
			want = append(want, alarmKey{"ApproximateNumberOfMessagesVisible", q})
		}
	}
	want = append(want, alarmKey{"ApproximateAgeOfOldestMessage", "IngestQueue"})
	for _, fn := range apiFunctions(t, tpl) {
		want = append(want, alarmKey{"Duration", fn})
	}
	for _, fn := range streamFunctions(tpl) {
		want = append(want, alarmKey{"IteratorAge", fn})
	}
	for _, k := range want {
		t.Run(k.resource+"/"+k.metric, func(t *testing.T) {
			id, ok := alarms[k]
			if !ok {
				t.Fatalf("no AWS::CloudWatch::Alarm on %s of %s", k.metric, k.resource)
			}
			if k.metric == "ApproximateNumberOfMessagesVisible" {
				op, _ := literal(tpl.resourceNode(id, "Properties", "ComparisonOperator"))
				threshold, _ := literal(tpl.resourceNode(id, "Properties", "Threshold"))
				if op != "GreaterThanThreshold" || threshold != "0" {
					t.Errorf("%s: %s %s, want GreaterThanThreshold 0 (one message is an alarm)", id, op, threshold)
				}
			}
			if k.metric == "Duration" {
				checkLatencyAlarm(t, tpl, id, k.resource)
			}
		})
	}
}

// apiFunctions returns the functions a request to the API runs: the Api's
// authorizer and every function with an Api event, sorted.
func apiFunctions(t *testing.T, tpl *samTemplate) []string {
	t.Helper()
	fns := map[string]bool{}
	for _, apiID := range tpl.resourceIDs("AWS::Serverless::Api") {
		authorizers := tpl.resourceNode(apiID, "Properties", "Auth", "Authorizers")
		for _, name := range keys(authorizers) {
			if fn, _, ok := getAttTarget(node(authorizers, name, "FunctionArn")); ok {
				fns[fn] = true
			}
		}
	}
	for _, events := range templateRoutes(t, tpl) {
		for _, ev := range events {
			fns[strings.SplitN(ev, ".", 2)[0]] = true
		}
	}
	return slices.Sorted(maps.Keys(fns))
}

// streamFunctions returns the functions that read the table's stream (a
// DynamoDB event), sorted.
func streamFunctions(tpl *samTemplate) []string {
	var out []string
	for _, fn := range tpl.resourceIDs("AWS::Serverless::Function") {
		events := tpl.resourceNode(fn, "Properties", "Events")
		if slices.ContainsFunc(keys(events), func(ev string) bool {
			typ, _ := literal(node(events, ev, "Type"))
			return typ == "DynamoDB"
		}) {
			out = append(out, fn)
		}
	}
	return out
}

// A function's latency alarm watches its p99 Duration and fires above half
// its Timeout: well before requests time out, and moved with the Timeout.
func checkLatencyAlarm(t *testing.T, tpl *samTemplate, id, fn string) {
	t.Helper()
	props := tpl.resourceNode(id, "Properties")
	if got, _ := literal(node(props, "ExtendedStatistic")); got != "p99" {
		t.Errorf("%s.ExtendedStatistic = %q, want p99", id, got)
	}
	timeout, ok := functionSetting(tpl, fn, "Timeout")
	seconds, err := strconv.Atoi(timeout)
	if !ok || err != nil {
		t.Fatalf("%s: Timeout %q (own or Globals.Function) is not a literal number of seconds", fn, timeout)
	}
	threshold, _ := literal(node(props, "Threshold"))
	if want := strconv.Itoa(seconds * 500); threshold != want {
		t.Errorf("%s.Threshold = %q ms, want %s ms (half of %s's Timeout of %d s)", id, threshold, want, fn, seconds)
	}
	if op, _ := literal(node(props, "ComparisonOperator")); op != "GreaterThanThreshold" {
		t.Errorf("%s.ComparisonOperator = %q, want GreaterThanThreshold", id, op)
	}
}

// alarmExpressions returns, for each alarm on metric math or a Metrics
// Insights query, its expressions (a !Sub's text as written), and the
// metrics it reads as "Namespace/MetricName".
func alarmExpressions(tpl *samTemplate) map[string][]string {
	out := map[string][]string{}
	for _, id := range tpl.resourceIDs("AWS::CloudWatch::Alarm") {
		queries := tpl.resourceNode(id, "Properties", "Metrics")
		if queries == nil || queries.Kind != yaml.SequenceNode {
			continue
		}
		for _, q := range queries.Content {
			if e := node(q, "Expression"); e != nil {
				out[id] = append(out[id], e.Value)
			}
			if m := node(q, "MetricStat", "Metric"); m != nil {
				ns, _ := literal(node(m, "Namespace"))
				name, _ := literal(node(m, "MetricName"))
				out[id] = append(out[id], ns+"/"+name)
			}
		}
	}
	return out
}

// The table's throttles and DynamoDB's own errors are alarms, over every
// operation on the table and its indexes: the guide tells operators to
// watch them.
func TestTableThrottlesAndSystemErrorsHaveAlarms(t *testing.T) {
	tpl := loadTemplate(t)
	expressions := alarmExpressions(tpl)
	for _, table := range tpl.resourceIDs("AWS::DynamoDB::Table") {
		for _, metric := range []string{"ThrottledRequests", "SystemErrors"} {
			want := fmt.Sprintf(`SELECT SUM(%s) FROM SCHEMA("AWS/DynamoDB", Operation, TableName) WHERE TableName = '${%s}'`, metric, table)
			found := false
			for _, exprs := range expressions {
				found = found || slices.Contains(exprs, want)
			}
			if !found {
				t.Errorf("no alarm on %s of %s (want the query %s)", metric, table, want)
			}
		}
	}
}

// The API's 4xx share is an alarm, with its threshold a parameter.
func TestApi4xxRateHasAnAlarm(t *testing.T) {
	tpl := loadTemplate(t)
	const id = "Api4xxRateAlarm"
	if got := alarmExpressions(tpl)[id]; !slices.Contains(got, "AWS/ApiGateway/4XXError") || !slices.Contains(got, "AWS/ApiGateway/Count") {
		t.Errorf("%s reads %q, want AWS/ApiGateway 4XXError and Count", id, got)
	}
	if got := refTarget(tpl.resourceNode(id, "Properties", "Threshold")); got != "Api4xxAlarmPercent" {
		t.Errorf("%s.Threshold = !Ref %q, want !Ref Api4xxAlarmPercent", id, got)
	}
}

// Every step of a limit event's delivery after the events function has an
// alarm on its failures: each rule on the bus (FailedInvocations, by the
// bus and the rule's name) and each SNS topic but the alarms' own
// (NumberOfNotificationsFailed).
func TestLimitEventDeliveriesHaveAlarms(t *testing.T) {
	tpl := loadTemplate(t)
	type dims map[string]string
	var alarms []dims
	for _, id := range tpl.resourceIDs("AWS::CloudWatch::Alarm") {
		props := tpl.resourceNode(id, "Properties")
		metric, _ := literal(node(props, "MetricName"))
		d := dims{"metric": metric}
		if list := node(props, "Dimensions"); list != nil {
			for _, c := range list.Content {
				name, _ := literal(node(c, "Name"))
				d[name] = describeValue(node(c, "Value"))
			}
		}
		alarms = append(alarms, d)
	}
	has := func(want dims) bool {
		return slices.ContainsFunc(alarms, func(d dims) bool { return maps.Equal(d, want) })
	}
	rules := tpl.resourceIDs("AWS::Events::Rule")
	if len(rules) == 0 {
		t.Fatal("no AWS::Events::Rule in the template")
	}
	for _, rule := range rules {
		name := tpl.resourceNode(rule, "Properties", "Name")
		if name == nil {
			t.Errorf("%s: no Name, so no alarm can name its RuleName dimension", rule)
			continue
		}
		want := dims{"metric": "FailedInvocations", "RuleName": describeValue(name),
			"EventBusName": describeValue(tpl.resourceNode(rule, "Properties", "EventBusName"))}
		if !has(want) {
			t.Errorf("no alarm on FailedInvocations of %s (want dimensions %v)", rule, want)
		}
	}
	for _, topic := range tpl.resourceIDs("AWS::SNS::Topic") {
		if topic == "AlarmTopic" {
			continue
		}
		if want := (dims{"metric": "NumberOfNotificationsFailed", "TopicName": "!GetAtt " + topic + ".TopicName"}); !has(want) {
			t.Errorf("no alarm on NumberOfNotificationsFailed of %s (want dimensions %v)", topic, want)
		}
	}
}

// describeValue writes a scalar, !Ref, !Sub or !GetAtt as it is written, so
// that two values can be compared.
func describeValue(n *yaml.Node) string {
	if n == nil {
		return ""
	}
	if r, a, ok := getAttTarget(n); ok {
		return "!GetAtt " + r + "." + a
	}
	if n.Kind == yaml.ScalarNode && n.Tag != "" && !strings.HasPrefix(n.Tag, "!!") {
		return n.Tag + " " + n.Value
	}
	return n.Value
}

// The runbook (docs/operations.md, "Alarms") names every alarm of the
// template, by the name it has after workspace-api-<TenantName>-.
func TestRunbookNamesEveryAlarm(t *testing.T) {
	tpl := loadTemplate(t)
	raw, err := os.ReadFile(repoRoot + "/docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(raw), "\n## Alarms\n")
	if !ok {
		t.Fatal(`docs/operations.md: no "## Alarms" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	for _, id := range tpl.resourceIDs("AWS::CloudWatch::Alarm") {
		n := tpl.resourceNode(id, "Properties", "AlarmName")
		if n == nil {
			t.Errorf("%s: no AlarmName", id)
			continue
		}
		name, ok := strings.CutPrefix(n.Value, "workspace-api-${TenantName}-")
		if n.Tag != "!Sub" || !ok {
			t.Errorf("%s.AlarmName: want !Sub workspace-api-${TenantName}-<name>", id)
			continue
		}
		if !strings.Contains(section, "### "+name+"\n") && !strings.Contains(section, "`"+name+"`") {
			t.Errorf("docs/operations.md, Alarms: %s is not named (a heading \"### %s\" or `%s`)", name, name, name)
		}
	}
}

// An alarm nobody hears of is no alarm: each notifies the stack's topic when
// it fires and when it clears.
func TestEveryAlarmNotifiesTheAlarmTopic(t *testing.T) {
	tpl := loadTemplate(t)
	alarms := tpl.resourceIDs("AWS::CloudWatch::Alarm")
	if len(alarms) == 0 {
		t.Fatal("no AWS::CloudWatch::Alarm in the template")
	}
	for _, id := range alarms {
		for _, actions := range []string{"AlarmActions", "OKActions"} {
			n := tpl.resourceNode(id, "Properties", actions)
			if n == nil || n.Kind != yaml.SequenceNode || len(n.Content) != 1 || refTarget(n.Content[0]) != "AlarmTopic" {
				t.Errorf("%s.%s: want [!Ref AlarmTopic]", id, actions)
			}
		}
	}
}

// The API reads each request's API key from the authorizer, and a dedicated
// stack registers its workspace under the value the authorizer returns for
// it: the template's !Sub must build workspace.UsageIdentifier.
func TestTenantApiKeyIsTheWorkspacesUsageIdentifier(t *testing.T) {
	tpl := loadTemplate(t)
	for _, apiID := range tpl.resourceIDs("AWS::Serverless::Api") {
		if got, _ := literal(tpl.resourceNode(apiID, "Properties", "ApiKeySourceType")); got != "AUTHORIZER" {
			t.Errorf("%s.ApiKeySourceType: got %q, want AUTHORIZER", apiID, got)
		}
		if got, _ := literal(tpl.resourceNode(apiID, "Properties", "Auth", "ApiKeyRequired")); got != "true" {
			t.Errorf("%s.Auth.ApiKeyRequired: got %q, want true (usage plans apply only to methods that require a key)", apiID, got)
		}
	}
	value := tpl.resourceNode("TenantApiKey", "Properties", "Value")
	if value == nil || value.Tag != "!Sub" {
		t.Fatalf("TenantApiKey.Value: want a !Sub of TenantWorkspaceId")
	}
	const sample = "ws_sample"
	if got, want := strings.ReplaceAll(value.Value, "${TenantWorkspaceId}", sample), workspace.UsageIdentifier(sample); got != want {
		t.Errorf("TenantApiKey.Value !Sub %q gives %q for workspace %s; the authorizer returns %q", value.Value, got, sample, want)
	}
}

// reservedDomain matches the domains reserved for examples (RFC 2606 and
// 6761): no deployment sends mail from one, links to one or alarms one.
var reservedDomain = regexp.MustCompile(`(?i)(^|[@./"])example\.(com|net|org)\b|\.(example|test|invalid|localhost)\b`)

// No stack is deployed with a placeholder mail sender, accept link or alarm
// address: the template gives them no default, and no environment of
// samconfig.toml sets one on an example domain.
func TestNoDeploymentUsesAnExampleDomain(t *testing.T) {
	tpl := loadTemplate(t)
	for _, param := range []string{"MailFrom", "InviteAcceptUrl", "AlarmEmail"} {
		p := node(tpl.root, "Parameters", param)
		if p == nil {
			t.Errorf("Parameters.%s: missing", param)
			continue
		}
		if d := node(p, "Default"); d != nil {
			t.Errorf("Parameters.%s.Default: got %q, want none (every deployment sets its own)", param, d.Value)
		}
		if pattern, _ := literal(node(p, "AllowedPattern")); !strings.Contains(pattern, `example\.(com|net|org)`) {
			t.Errorf("Parameters.%s.AllowedPattern: got %q, want one refusing example domains", param, pattern)
		}
	}

	raw, err := os.ReadFile(samconfigPath)
	if err != nil {
		t.Fatal(err)
	}
	envs, _, err := parseSamconfig(string(raw))
	if err != nil {
		t.Fatalf("samconfig.toml: %v", err)
	}
	overrides := 0
	for _, env := range envs {
		for cmd, values := range env.overrides {
			for _, o := range values {
				overrides++
				if m := reservedDomain.FindString(o.name + "=\"" + o.value + "\""); m != "" {
					t.Errorf("samconfig.toml [%s.%s]: %s names an example domain (%q)", env.name, cmd, o.name, m)
				}
			}
		}
	}
	if overrides == 0 {
		t.Error("samconfig.toml: no parameter_overrides found")
	}
	// The pattern itself: what it must and must not flag.
	for value, want := range map[string]bool{
		`MailFrom="no-reply@example.com"`:            true,
		`InviteAcceptUrl="https://app.example.com/"`: true,
		`MailFrom="no-reply@acme.example"`:           true,
		`AlarmEmail="ops@agentplatform.io"`:          false,
		`MailFrom="no-reply@myexample.com"`:          false,
	} {
		if got := reservedDomain.MatchString(value); got != want {
			t.Errorf("reservedDomain.MatchString(%s) = %v, want %v", value, got, want)
		}
	}
}
