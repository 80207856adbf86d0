package main

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// usageKey prints a workspace's usage identifier and the AWS CLI commands that
// register it as an API Gateway API key in a stack's default usage plan, as a
// shell script an operator can read and run. Every method of the API requires
// an API key, read from the authorizer (workspace.UsageIdentifier), so a
// workspace whose identifier is in no usage plan of the stage gets 403 on
// every request. It reads nothing: the identifier follows from the id, and
// the commands run with the operator's own AWS credentials.
func (a *app) usageKey(args []string) error {
	const cmd = "usage-key"
	fs := newFlagSet(cmd)
	ws := fs.String("workspace", "", "")
	stack := fs.String("stack", "", "")
	plan := fs.String("usage-plan", "", "")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	if err := required(cmd, [2]string{"workspace", *ws}); err != nil {
		return err
	}
	if (*stack == "") == (*plan == "") {
		return usagef("%s: give -stack NAME or -usage-plan ID (one of them)", cmd)
	}
	// The values are quoted where they are shell words, but they also sit in
	// comment lines: a line break there would start a command.
	for _, f := range [][2]string{{"workspace", *ws}, {"stack", *stack}, {"usage-plan", *plan}} {
		if strings.ContainsFunc(f[1], unicode.IsControl) {
			return usagef("%s: -%s holds a control character", cmd, f[0])
		}
	}
	aws := "aws"
	if a.region != "" {
		aws += " --region " + shellQuote(a.region)
	}
	id := workspace.UsageIdentifier(*ws)
	var b strings.Builder
	fmt.Fprintf(&b, "# Workspace %s: its usage identifier, which the key authorizer returns as usageIdentifierKey.\n", *ws)
	fmt.Fprintf(&b, "usage_id=%s\n", shellQuote(id))
	if *stack != "" {
		fmt.Fprintf(&b, "# The default usage plan of stack %s (its UsagePlanId output).\n", *stack)
		fmt.Fprintf(&b, "plan_id=$(%s cloudformation describe-stacks --stack-name %s --query \"Stacks[0].Outputs[?OutputKey=='UsagePlanId'].OutputValue\" --output text)\n",
			aws, shellQuote(*stack))
	} else {
		fmt.Fprintf(&b, "plan_id=%s\n", shellQuote(*plan))
	}
	b.WriteString("# The API key holding the identifier. Its value is unique in the account and region: when this\n" +
		"# says it exists (the workspace is registered for another stack here), take its id instead with\n")
	fmt.Fprintf(&b, "#   key_id=$(%s apigateway get-api-keys --name-query \"$usage_id\" --query 'items[0].id' --output text)\n", aws)
	fmt.Fprintf(&b, "key_id=$(%s apigateway create-api-key --name \"$usage_id\" --value \"$usage_id\" --enabled --query id --output text)\n", aws)
	b.WriteString("# Its requests now count against the plan's per-workspace throttle instead of being refused.\n")
	fmt.Fprintf(&b, "%s apigateway create-usage-plan-key --usage-plan-id \"$plan_id\" --key-type API_KEY --key-id \"$key_id\"\n", aws)
	_, err := fmt.Fprint(a.stdout, b.String())
	return err
}

// shellQuote quotes s for a POSIX shell: in single quotes, each quote inside
// ending the quoted part, escaped, and starting another.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
