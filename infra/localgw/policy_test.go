package localgw

import "testing"

func TestWildcardMatchFollowsIAM(t *testing.T) {
	const arn = "arn:aws:execute-api:us-east-1:123456789012:local/v1/GET/workspaceapi/invites"
	tests := []struct {
		pattern string
		want    bool
	}{
		{arn, true},
		{"*", true},
		{"arn:aws:execute-api:us-east-1:123456789012:local/v1/*", true},
		{"arn:aws:execute-api:*:*:local/*/GET/*", true},
		{"arn:aws:execute-api:us-east-1:123456789012:local/v?/GET/workspaceapi/invites", true},
		{"arn:aws:execute-api:us-east-1:123456789012:local/v1/GET/workspaceapi/invites*", true},
		{"arn:aws:execute-api:us-east-1:123456789012:local/v1/POST/*", false},
		{"arn:aws:execute-api:us-east-1:123456789012:local/v1/GET/workspaceapi", false},
		{"arn:aws:execute-api:us-east-1:123456789012:local/v1/GET/workspaceapi/invites/", false},
		{"arn:aws:execute-api:us-east-1:123456789012:local/v1/get/workspaceapi/invites", false},
		{"arn:aws:execute-api:us-east-1:123456789012:local/v?/GET", false},
		{"", false},
	}
	for _, tc := range tests {
		if got := wildcardMatch(tc.pattern, arn); got != tc.want {
			t.Errorf("wildcardMatch(%q): got %v, want %v", tc.pattern, got, tc.want)
		}
	}
}

func TestPolicyExplicitDenyWins(t *testing.T) {
	const arn = "arn:aws:execute-api:us-east-1:123456789012:local/v1/GET/x"
	allow := statement{Effect: "Allow", Action: oneOrMany[string]{"execute-api:Invoke"}, Resource: oneOrMany[string]{"*"}}
	deny := statement{Effect: "Deny", Action: oneOrMany[string]{"*"}, Resource: oneOrMany[string]{arn}}
	other := statement{Effect: "Allow", Action: oneOrMany[string]{"execute-api:Invoke"}, Resource: oneOrMany[string]{"arn:other"}}
	tests := []struct {
		name                  string
		statements            []statement
		wantAllowed, wantDeny bool
	}{
		{"allow", []statement{allow}, true, false},
		{"deny after allow", []statement{allow, deny}, false, true},
		{"deny before allow", []statement{deny, allow}, false, true},
		{"no matching statement", []statement{other}, false, false},
		{"no statement", nil, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := policyDocument{Statement: tc.statements}
			allowed, deny := p.allows(arn)
			if allowed != tc.wantAllowed || deny != tc.wantDeny {
				t.Errorf("allows: got (%v, %v), want (%v, %v)", allowed, deny, tc.wantAllowed, tc.wantDeny)
			}
		})
	}
}
