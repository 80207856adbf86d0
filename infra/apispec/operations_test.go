package apispec_test

// Checks of what template.yaml and samconfig.toml hold for operating a
// deployment: alarms, the usage plan's key and the deployments' settings.

import (
	"os"
	"regexp"
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
		})
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
