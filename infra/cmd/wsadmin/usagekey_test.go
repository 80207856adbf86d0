package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// A workspace answers 403 until its usage identifier is an API key in a usage
// plan of the stage: usage-key prints the identifier the authorizer returns
// and the aws commands that register it, with no table and no AWS call.
func TestUsageKeyPrintsTheIdentifierAndTheCommandsThatRegisterIt(t *testing.T) {
	t.Setenv("TABLE_NAME", "")
	t.Setenv("DYNAMODB_ENDPOINT", "")
	cases := []struct {
		name    string
		args    []string
		want    []string // lines of stdout, each in full
		wantNot []string // text stdout must not hold
	}{
		{"from the stack's UsagePlanId output", []string{"usage-key", "-workspace", "ws_acme", "-stack", "workspace-api-shared"},
			[]string{
				"usage_id='workspace-api-usage-ws_acme'",
				`plan_id=$(aws cloudformation describe-stacks --stack-name 'workspace-api-shared' --query "Stacks[0].Outputs[?OutputKey=='UsagePlanId'].OutputValue" --output text)`,
				`key_id=$(aws apigateway create-api-key --name "$usage_id" --value "$usage_id" --enabled --query id --output text)`,
				`aws apigateway create-usage-plan-key --usage-plan-id "$plan_id" --key-type API_KEY --key-id "$key_id"`,
			}, []string{"--region"}},
		{"with the plan's id", []string{"usage-key", "-workspace", "ws_acme", "-usage-plan", "abc123"},
			[]string{"plan_id='abc123'"}, []string{"describe-stacks"}},
		{"-region reaches every aws command", []string{"-region", "eu-west-1", "usage-key", "-workspace", "ws_acme", "-stack", "s"},
			[]string{
				`plan_id=$(aws --region 'eu-west-1' cloudformation describe-stacks --stack-name 's' --query "Stacks[0].Outputs[?OutputKey=='UsagePlanId'].OutputValue" --output text)`,
				`key_id=$(aws --region 'eu-west-1' apigateway create-api-key --name "$usage_id" --value "$usage_id" --enabled --query id --output text)`,
				`aws --region 'eu-west-1' apigateway create-usage-plan-key --usage-plan-id "$plan_id" --key-type API_KEY --key-id "$key_id"`,
			}, nil},
		{"a quote in an id stays inside its shell word", []string{"usage-key", "-workspace", "ws_o'brien", "-usage-plan", "p"},
			[]string{`usage_id='workspace-api-usage-ws_o'\''brien'`}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tc.args...)
			if code != 0 {
				t.Fatalf("exit %d, stderr %s", code, stderr)
			}
			lines := strings.Split(stdout, "\n")
			for _, want := range tc.want {
				if !slices.Contains(lines, want) {
					t.Errorf("stdout lacks the line\n  %s\nstdout:\n%s", want, stdout)
				}
			}
			for _, not := range tc.wantNot {
				if strings.Contains(stdout, not) {
					t.Errorf("stdout holds %q:\n%s", not, stdout)
				}
			}
			// What it prints is a shell script: it must at least parse.
			if sh, err := exec.LookPath("sh"); err == nil {
				if out, err := exec.Command(sh, "-n", "-c", stdout).CombinedOutput(); err != nil {
					t.Errorf("sh -n: %v: %s\nscript:\n%s", err, out, stdout)
				}
			}
		})
	}
}

func TestUsageKeyUsageErrors(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no workspace", []string{"usage-key", "-stack", "s"}, "usage-key: -workspace is required"},
		{"neither stack nor plan", []string{"usage-key", "-workspace", "w"}, "give -stack NAME or -usage-plan ID (one of them)"},
		{"both stack and plan", []string{"usage-key", "-workspace", "w", "-stack", "s", "-usage-plan", "p"}, "(one of them)"},
		{"a line break would end the comment line it is printed in", []string{"usage-key", "-workspace", "w\nrm -rf x", "-stack", "s"},
			"-workspace holds a control character"},
		{"argument", []string{"usage-key", "-workspace", "w", "-stack", "s", "now"}, `usage-key: unexpected argument "now"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tc.args...)
			if code != 2 || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "Usage: wsadmin") {
				t.Errorf("exit %d, stderr %s; want 2 and %q with the usage", code, stderr, tc.want)
			}
			if stdout != "" {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
		})
	}
}
