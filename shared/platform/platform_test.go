package platform_test

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/agentplatform/workspaceapi/infra/dynamolocal"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
	"github.com/agentplatform/workspaceapi/shared/platform"
)

func TestMain(m *testing.M) { os.Exit(dynamolocal.RunTests(m)) }

// What Lambda sets in every function's environment (the execution role's
// temporary credentials), and what the template sets.
var lambdaEnv = map[string]string{
	"AWS_REGION":            "eu-west-1",
	"AWS_DEFAULT_REGION":    "eu-west-1",
	"AWS_ACCESS_KEY_ID":     "ASIALAMBDAROLE",
	"AWS_SECRET_ACCESS_KEY": "lambda-role-secret",
	"AWS_SESSION_TOKEN":     "lambda-role-session-token",
	"AWS_EXECUTION_ENV":     "AWS_Lambda_provided.al2023",
	"TABLE_NAME":            "workspace-api",
	"DYNAMODB_ENDPOINT":     "",
}

// setEnv gives the test exactly vars among the variables the configuration
// reads (the others empty, as unset).
func setEnv(t *testing.T, vars map[string]string) {
	t.Helper()
	for k := range lambdaEnv {
		t.Setenv(k, "")
	}
	t.Setenv("AWS_ACCOUNT_ID", "")
	for k, v := range vars {
		t.Setenv(k, v)
	}
}

func TestLoadTakesRegionAndCredentialsFromLambdasEnvironment(t *testing.T) {
	setEnv(t, lambdaEnv)
	env, err := platform.Load()
	if err != nil {
		t.Fatalf("Load with Lambda's variables: %v", err)
	}
	if got, want := env.AWS.Region, "eu-west-1"; got != want {
		t.Errorf("region = %q, want %q", got, want)
	}
	creds, err := env.AWS.Credentials.Retrieve(context.Background())
	if err != nil {
		t.Fatalf("retrieve credentials: %v", err)
	}
	if creds.AccessKeyID != "ASIALAMBDAROLE" || creds.SecretAccessKey != "lambda-role-secret" || creds.SessionToken != "lambda-role-session-token" {
		t.Errorf("credentials = %q/%q/%q, want the execution role's from the environment",
			creds.AccessKeyID, creds.SecretAccessKey, creds.SessionToken)
	}
	if got := env.Store.Table(); got != "workspace-api" {
		t.Errorf("table = %q, want TABLE_NAME's", got)
	}
}

// A request made with the configuration is signed with the role's
// credentials, its session token and the region, and DynamoDB (Local)
// answers it.
func TestLoadedConfigurationSignsRequestsWithTheRole(t *testing.T) {
	endpoint := dynamolocal.Endpoint(t) // before the environment changes
	vars := map[string]string{"DYNAMODB_ENDPOINT": endpoint}
	for k, v := range lambdaEnv {
		if k != "DYNAMODB_ENDPOINT" {
			vars[k] = v
		}
	}
	setEnv(t, vars)
	env, err := platform.Load()
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	var sent http.Header
	capture := func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
			// Last of Finalize: after signing, as sent.
			return s.Finalize.Add(middleware.FinalizeMiddlewareFunc("CaptureSigned",
				func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (
					middleware.FinalizeOutput, middleware.Metadata, error) {
					if req, ok := in.Request.(*smithyhttp.Request); ok {
						sent = req.Header.Clone()
					}
					return next.HandleFinalize(ctx, in)
				}), middleware.After)
		})
	}
	client := dynamo.ClientFromConfig(env.AWS, env.Config.DynamoDBEndpoint, capture)
	if _, err := client.ListTables(context.Background(), &dynamodb.ListTablesInput{Limit: aws.Int32(1)}); err != nil {
		t.Fatalf("a call with the loaded configuration: %v", err)
	}
	if got, want := sent.Get("Authorization"), "Credential=ASIALAMBDAROLE/"; !strings.Contains(got, want) {
		t.Errorf("Authorization = %q, want it signed by %q", got, want)
	}
	if got, want := sent.Get("Authorization"), "/eu-west-1/dynamodb/aws4_request"; !strings.Contains(got, want) {
		t.Errorf("Authorization = %q, want the scope %q", got, want)
	}
	if got, want := sent.Get("X-Amz-Security-Token"), "lambda-role-session-token"; got != want {
		t.Errorf("X-Amz-Security-Token = %q, want the role's session token %q", got, want)
	}
}

// Without a variable Lambda sets, Load fails with an error naming it, never
// panics and never goes on with anonymous credentials.
func TestLoadFailsNamingAMissingLambdaVariable(t *testing.T) {
	tests := []struct {
		rule    string
		unset   []string
		wantErr []string
	}{
		{"no region", []string{"AWS_REGION", "AWS_DEFAULT_REGION"}, []string{"AWS_REGION is not set"}},
		{"no access key", []string{"AWS_ACCESS_KEY_ID"}, []string{"AWS_ACCESS_KEY_ID is not set"}},
		{"no secret key", []string{"AWS_SECRET_ACCESS_KEY"}, []string{"AWS_SECRET_ACCESS_KEY is not set"}},
		{"no credentials at all", []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"},
			[]string{"AWS_ACCESS_KEY_ID is not set", "AWS_SECRET_ACCESS_KEY is not set"}},
		{"nothing of Lambda's", []string{"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"},
			[]string{"AWS_REGION is not set", "AWS_ACCESS_KEY_ID is not set", "AWS_SECRET_ACCESS_KEY is not set"}},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			vars := map[string]string{}
			for k, v := range lambdaEnv {
				vars[k] = v
			}
			for _, k := range tt.unset {
				delete(vars, k)
			}
			setEnv(t, vars)
			env, err := platform.Load()
			if err == nil {
				t.Fatalf("Load without %v succeeded (region %q, credentials %v), want an error", tt.unset, env.AWS.Region, env.AWS.Credentials)
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		})
	}
}

// Against DynamoDB Local (sam local, the local runner) the region and the
// credentials may be missing: local stand-ins take their place.
func TestLoadAgainstALocalEndpointNeedsNoCredentials(t *testing.T) {
	setEnv(t, map[string]string{"TABLE_NAME": "workspace-api-local", "DYNAMODB_ENDPOINT": "http://127.0.0.1:8000"})
	env, err := platform.Load()
	if err != nil {
		t.Fatalf("Load against a local endpoint: %v", err)
	}
	if env.AWS.Region == "" {
		t.Error("no region, want the local stand-in")
	}
	if _, err := env.AWS.Credentials.Retrieve(context.Background()); err != nil {
		t.Errorf("credentials: %v, want the local stand-ins", err)
	}
}
