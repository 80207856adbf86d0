package localgw_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/agentplatform/workspaceapi/infra/localgw"
)

func TestParseTemplateReadsRealTemplate(t *testing.T) {
	tmpl := loadTemplate(t)
	if got, want := tmpl.FunctionIDs(), []string{"AgentDataFunction", "AgentsFunction", "AuditFunction", "AuthorizerFunction", "ChatsFunction", "CreditsFunction", "EventsFunction", "IngestFunction", "InvitesFunction", "KeysFunction", "MembersFunction", "MigrateFunction", "RetentionFunction", "SchedulerFunction", "TagsFunction", "TeamsFunction", "WebhookDeliveryFunction", "WebhooksFunction"}; !slices.Equal(got, want) {
		t.Errorf("FunctionIDs: got %q, want %q", got, want)
	}
	var streams []string
	for _, src := range tmpl.StreamSources() {
		streams = append(streams, fmt.Sprintf("%s %d %s", src.FunctionID, src.BatchSize, src.Filter))
	}
	if want := []string{
		`RetentionFunction 100 {"eventName": ["REMOVE"], "userIdentity": {"type": ["Service"], "principalId": ["dynamodb.amazonaws.com"]}, "dynamodb": {"OldImage": {"entity": {"S": ["invitation"]}}}}`,
		`EventsFunction 100 {"eventName": ["INSERT"], "dynamodb": {"NewImage": {"entity": {"S": ["outbox"]}}}}`,
	}; !slices.Equal(streams, want) {
		t.Errorf("StreamSources: got %q, want %q", streams, want)
	}
	if got := tmpl.Stage(); got != "v1" {
		t.Errorf("Stage: got %q, want v1", got)
	}
	if got, ok := tmpl.ParameterDefault("AuthorizerCacheTtl"); !ok || got != "60" {
		t.Errorf("ParameterDefault(AuthorizerCacheTtl): got %q, %v; want 60, true", got, ok)
	}
	if _, ok := tmpl.ParameterDefault("Nope"); ok {
		t.Error("ParameterDefault(Nope): got ok, want not found")
	}
}

func TestParseTemplateRejectsWhatItCannotServe(t *testing.T) {
	// base is a valid template; each case replaces one line of it.
	const base = `
Parameters:
  Ttl: {Type: Number, Default: 300}
Resources:
  Api:
    Type: AWS::Serverless::Api
    Properties:
      StageName: v1
      Auth:
        DefaultAuthorizer: KeyAuthorizer
        Authorizers:
          KeyAuthorizer:
            FunctionPayloadType: REQUEST
            FunctionArn: !GetAtt AuthFn.Arn
            Identity: {Headers: [Authorization], ReauthorizeEvery: !Ref Ttl}
      GatewayResponses:
        UNAUTHORIZED: {StatusCode: "401", ResponseParameters: {Headers: {Content-Type: "'application/json'"}}}
  AuthFn: {Type: AWS::Serverless::Function}
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Timeout: 10
      Events:
        A: {Type: Api, Properties: {RestApiId: !Ref Api, Path: /a, Method: get}}
        B: {Type: Api, Properties: {RestApiId: !Ref Api, Path: "/b/{id}", Method: post}}
`
	if _, err := localgw.ParseTemplate([]byte(base)); err != nil {
		t.Fatalf("base template: %v", err)
	}
	tests := []struct {
		name    string
		old     string
		new     string
		wantErr string
	}{
		{"invalid YAML", "Resources:", "Resources: [", "template"},
		{"TOKEN authorizer", "FunctionPayloadType: REQUEST", "FunctionPayloadType: TOKEN", "only REQUEST"},
		{"unknown default authorizer", "DefaultAuthorizer: KeyAuthorizer", "DefaultAuthorizer: Other", "not one of Auth.Authorizers"},
		{"authorizer function not in template", "!GetAtt AuthFn.Arn", "!GetAtt Missing.Arn", "Missing"},
		{"authorizer ARN not a GetAtt", "!GetAtt AuthFn.Arn", "arn:aws:lambda:us-east-1:1:function:x", "GetAtt"},
		{"unresolvable Ref", "!Ref Ttl", "!Ref NoSuchParameter", "NoSuchParameter"},
		{"caching without identity source", "Headers: [Authorization], ", "", "identity source"},
		{"unknown gateway response type", "UNAUTHORIZED:", "UNAUTHORISED:", "unknown gateway response type"},
		{"non-numeric gateway response status", `StatusCode: "401"`, `StatusCode: "four"`, "not an HTTP status"},
		{"non-static gateway response header", `"'application/json'"`, "method.request.header.Accept", "static"},
		{"duplicate route", "Path: \"/b/{id}\", Method: post", "Path: /a, Method: get", "also an event"},
		{"path without leading slash", "Path: /a,", "Path: a,", "does not start with /"},
		{"partial parameter segment", `Path: "/b/{id}"`, `Path: "/b/x{id}"`, "whole segment"},
		{"greedy parameter not last", `Path: "/b/{id}"`, `Path: "/b/{id+}/c"`, "not the last"},
		{"variable siblings with different names", `Path: /a,`, `Path: "/b/{other}",`, "two variable children"},
		{"unknown method", "Method: post", "Method: fetch", "not an HTTP method"},
		{"event on the implicit API", "RestApiId: !Ref Api, Path: /a", "Path: /a", "implicit API"},
		{"zero function timeout", "Timeout: 10", "Timeout: 0", "at least 1 second"},
		{"unknown API key source", "      StageName: v1\n", "      StageName: v1\n      ApiKeySourceType: QUERY\n", "neither HEADER nor AUTHORIZER"},
		{"API key requirement not a boolean", "      Auth:\n", "      Auth:\n        ApiKeyRequired: maybe\n", "neither true nor false"},
		{"route API key requirement not a boolean", "Path: /a, Method: get}", "Path: /a, Method: get, Auth: {ApiKeyRequired: 1}}", "neither true nor false"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(base, tc.old, tc.new, 1)
			if src == base {
				t.Fatalf("case does not change the template: %q not found", tc.old)
			}
			_, err := localgw.ParseTemplate([]byte(src))
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseTemplate: got error %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestLoadTemplateReportsMissingFile(t *testing.T) {
	if _, err := localgw.LoadTemplate("no-such-template.yaml"); err == nil {
		t.Error("LoadTemplate: got no error for a missing file")
	}
}

func TestNewNeedsExactlyTheTemplateFunctions(t *testing.T) {
	tmpl := loadTemplate(t)
	handler := (&proxyFunc{}).handler()
	h := localgw.Factory(func() lambda.Handler { return handler })
	// every returns a factory for each function of the template, changed by edit.
	every := func(edit func(map[string]localgw.Factory)) map[string]localgw.Factory {
		fns := map[string]localgw.Factory{}
		for _, id := range tmpl.FunctionIDs() {
			fns[id] = h
		}
		edit(fns)
		return fns
	}
	tests := []struct {
		name      string
		functions map[string]localgw.Factory
		wantErr   string
	}{
		{"all present", every(func(map[string]localgw.Factory) {}), ""},
		{"missing handler", every(func(f map[string]localgw.Factory) { delete(f, "InvitesFunction") }), "no handler for function InvitesFunction"},
		{"nil handler", every(func(f map[string]localgw.Factory) { f["InvitesFunction"] = nil }), "no handler for function InvitesFunction"},
		{"unknown function", every(func(f map[string]localgw.Factory) { f["NoSuchFunction"] = h }), "NoSuchFunction, which is not a function of the template"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := localgw.New(tmpl, tc.functions, localgw.Options{})
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("New: got %v, want no error", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("New: got error %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}
