package apispec_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// subVariable is a ${Name} or ${Resource.Attribute} of a !Sub (not ${!Literal}).
var subVariable = regexp.MustCompile(`\$\{([^!}][^}]*)\}`)

// dashboardMetric is one metric of a dashboard widget: "Namespace/MetricName"
// with its dimensions as written, and its own statistic when it has one.
type dashboardMetric struct {
	name       string
	dimensions map[string]string
	stat       string
}

// dashboardBody returns the dashboard's body with every !Sub variable
// checked (a parameter, a resource, a resource's attribute or a pseudo
// parameter) and replaced by a sample of its kind, so it can be read as the
// JSON CloudWatch reads.
func dashboardBody(t *testing.T, tpl *samTemplate, id string) string {
	t.Helper()
	body := tpl.resourceNode(id, "Properties", "DashboardBody")
	if body == nil || body.Tag != "!Sub" {
		t.Fatalf("%s.DashboardBody: want a !Sub of the JSON body, so that names resolve", id)
	}
	params := node(tpl.root, "Parameters")
	resources := node(tpl.root, "Resources")
	return subVariable.ReplaceAllStringFunc(body.Value, func(v string) string {
		name := v[2 : len(v)-1]
		resource, _, _ := strings.Cut(name, ".")
		switch {
		case node(params, name) != nil:
			if typ, _ := literal(node(params, name, "Type")); typ == "Number" {
				return "1"
			}
			return "sample-" + name
		case node(resources, resource) != nil, strings.HasPrefix(name, "AWS::"):
			return "sample-" + name
		}
		t.Errorf("%s.DashboardBody: ${%s} is no parameter, resource or pseudo parameter", id, name)
		return v
	})
}

// sampleOf returns what a template value (a literal, !Ref, !GetAtt or !Sub)
// becomes in a dashboard body substituted by dashboardBody, for string
// parameters and resources.
func sampleOf(n *yaml.Node) string {
	if n == nil {
		return ""
	}
	if r, a, ok := getAttTarget(n); ok {
		return "sample-" + r + "." + a
	}
	if ref := refTarget(n); ref != "" {
		return "sample-" + ref
	}
	if n.Tag == "!Sub" {
		return subVariable.ReplaceAllStringFunc(n.Value, func(v string) string { return "sample-" + v[2:len(v)-1] })
	}
	return n.Value
}

// dashboardMetrics reads the metrics of every metric widget of a dashboard
// body, and the expressions (metric math and Metrics Insights queries).
func dashboardMetrics(t *testing.T, body string) (metrics []dashboardMetric, expressions []string) {
	t.Helper()
	var doc struct {
		Widgets []struct {
			Type       string `json:"type"`
			Properties struct {
				Region  string  `json:"region"`
				Metrics [][]any `json:"metrics"`
			} `json:"properties"`
		} `json:"widgets"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatalf("DashboardBody is not valid JSON once substituted: %v\n%s", err, body)
	}
	if len(doc.Widgets) == 0 {
		t.Fatal("DashboardBody: no widgets")
	}
	for i, w := range doc.Widgets {
		if w.Type != "metric" {
			continue
		}
		if w.Properties.Region == "" {
			t.Errorf("widget %d: no region", i)
		}
		for _, m := range w.Properties.Metrics {
			var parts []string
			opts := map[string]any{}
			for _, p := range m {
				switch v := p.(type) {
				case string:
					parts = append(parts, v)
				case map[string]any:
					opts = v
				default:
					t.Errorf("widget %d: metric %v: %T is neither a name nor options", i, m, p)
				}
			}
			if e, ok := opts["expression"].(string); ok && len(parts) == 0 {
				expressions = append(expressions, e)
				continue
			}
			if len(parts) < 2 || len(parts)%2 != 0 {
				t.Errorf("widget %d: metric %v: want namespace, name and dimension pairs", i, m)
				continue
			}
			dm := dashboardMetric{name: parts[0] + "/" + parts[1], dimensions: map[string]string{}}
			for j := 2; j < len(parts); j += 2 {
				dm.dimensions[parts[j]] = parts[j+1]
			}
			dm.stat, _ = opts["stat"].(string)
			metrics = append(metrics, dm)
		}
	}
	return metrics, expressions
}

// The stack's dashboard shows what an operator answering an alarm looks at
// first, for every function and queue of the template: a function or queue
// added later without its place on the dashboard fails here.
func TestDashboardShowsTheStack(t *testing.T) {
	tpl := loadTemplate(t)
	dashboards := tpl.resourceIDs("AWS::CloudWatch::Dashboard")
	if len(dashboards) != 1 {
		t.Fatalf("AWS::CloudWatch::Dashboard resources: %q, want one", dashboards)
	}
	id := dashboards[0]
	metrics, expressions := dashboardMetrics(t, dashboardBody(t, tpl, id))
	has := func(name, dimension, value, stat string) bool {
		return slices.ContainsFunc(metrics, func(m dashboardMetric) bool {
			return m.name == name && m.dimensions[dimension] == value && (stat == "" || m.stat == stat)
		})
	}
	check := func(what, name, dimension, value, stat string) {
		t.Helper()
		if !has(name, dimension, value, stat) {
			t.Errorf("%s: no %s (%s %s=%s %s)", id, what, name, dimension, value, stat)
		}
	}
	for _, fn := range tpl.resourceIDs("AWS::Serverless::Function") {
		v := "sample-" + fn
		check(fn+" requests", "AWS/Lambda/Invocations", "FunctionName", v, "")
		check(fn+" errors", "AWS/Lambda/Errors", "FunctionName", v, "")
		check(fn+" latency p50", "AWS/Lambda/Duration", "FunctionName", v, "p50")
		check(fn+" latency p99", "AWS/Lambda/Duration", "FunctionName", v, "p99")
	}
	for _, fn := range streamFunctions(tpl) {
		check(fn+" stream lag", "AWS/Lambda/IteratorAge", "FunctionName", "sample-"+fn, "")
	}
	for _, q := range tpl.resourceIDs("AWS::SQS::Queue") {
		v := "sample-" + q + ".QueueName"
		if strings.HasSuffix(q, "DeadLetterQueue") {
			check(q+" depth", "AWS/SQS/ApproximateNumberOfMessagesVisible", "QueueName", v, "")
		} else {
			check(q+" lag", "AWS/SQS/ApproximateAgeOfOldestMessage", "QueueName", v, "")
		}
	}
	check("API requests", "AWS/ApiGateway/Count", "ApiName", "workspace-api-sample-TenantName", "")
	check("API 4xx", "AWS/ApiGateway/4XXError", "ApiName", "workspace-api-sample-TenantName", "")
	check("API 5xx", "AWS/ApiGateway/5XXError", "ApiName", "workspace-api-sample-TenantName", "")
	check("API latency p99", "AWS/ApiGateway/Latency", "ApiName", "workspace-api-sample-TenantName", "p99")
	for _, table := range tpl.resourceIDs("AWS::DynamoDB::Table") {
		v := "sample-" + table
		check(table+" read throttles", "AWS/DynamoDB/ReadThrottleEvents", "TableName", v, "")
		check(table+" write throttles", "AWS/DynamoDB/WriteThrottleEvents", "TableName", v, "")
		for _, metric := range []string{"ThrottledRequests", "SystemErrors"} {
			want := fmt.Sprintf(`SELECT SUM(%s) FROM SCHEMA("AWS/DynamoDB", Operation, TableName) WHERE TableName = '%s' GROUP BY Operation`, metric, v)
			if !slices.Contains(expressions, want) {
				t.Errorf("%s: no %s of %s by operation (want the query %s)", id, metric, table, want)
			}
		}
	}
	for _, rule := range tpl.resourceIDs("AWS::Events::Rule") {
		bus := sampleOf(tpl.resourceNode(rule, "Properties", "EventBusName"))
		name := sampleOf(tpl.resourceNode(rule, "Properties", "Name"))
		for _, metric := range []string{"MatchedEvents", "Invocations", "FailedInvocations"} {
			if !slices.ContainsFunc(metrics, func(m dashboardMetric) bool {
				return m.name == "AWS/Events/"+metric && m.dimensions["EventBusName"] == bus && m.dimensions["RuleName"] == name
			}) {
				t.Errorf("%s: no %s of %s (EventBusName=%s RuleName=%s)", id, metric, rule, bus, name)
			}
		}
	}
	for _, topic := range tpl.resourceIDs("AWS::SNS::Topic") {
		if topic == "AlarmTopic" {
			continue
		}
		for _, metric := range []string{"NumberOfNotificationsDelivered", "NumberOfNotificationsFailed"} {
			check(topic+" "+metric, "AWS/SNS/"+metric, "TopicName", "sample-"+topic+".TopicName", "")
		}
	}
}
