package localgw

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// authorizerOutput is a Lambda authorizer's response
// (events.APIGatewayCustomAuthorizerResponse), read as API Gateway reads it:
// Action and Resource may be a string or a list, Statement an object or a list.
type authorizerOutput struct {
	PrincipalID        string          `json:"principalId"`
	PolicyDocument     *policyDocument `json:"policyDocument"`
	Context            map[string]any  `json:"context"`
	UsageIdentifierKey string          `json:"usageIdentifierKey"`
}

type policyDocument struct {
	Version   string
	Statement oneOrMany[statement]
}

type statement struct {
	Effect   string
	Action   oneOrMany[string]
	Resource oneOrMany[string]
}

// oneOrMany is a JSON value that is either one T or a list of T.
type oneOrMany[T any] []T

func (m *oneOrMany[T]) UnmarshalJSON(data []byte) error {
	switch t := bytes.TrimSpace(data); {
	case bytes.Equal(t, []byte("null")):
		*m = nil
		return nil
	case len(t) > 0 && t[0] == '[':
		return json.Unmarshal(data, (*[]T)(m))
	}
	var one T
	if err := json.Unmarshal(data, &one); err != nil {
		return err
	}
	*m = oneOrMany[T]{one}
	return nil
}

// parseAuthorizerOutput reads an authorizer's response. It fails, as API
// Gateway does ("AuthorizerConfigurationException"), when the response is not
// such an object, has no policy, a statement's Effect is not Allow or Deny, or
// a context value is not a string, number, boolean or null. Context values
// come back stringified, as REST APIs hand them to a Lambda proxy integration
// ("123", "true").
func parseAuthorizerOutput(data []byte) (*authorizerOutput, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out authorizerOutput
	if err := dec.Decode(&out); err != nil {
		return nil, fmt.Errorf("could not parse the authorizer response: %w", err)
	}
	if out.PolicyDocument == nil {
		return nil, errors.New("the authorizer response has no policyDocument")
	}
	for i, s := range out.PolicyDocument.Statement {
		if s.Effect != "Allow" && s.Effect != "Deny" {
			return nil, fmt.Errorf("policy statement %d: Effect %q is neither Allow nor Deny", i, s.Effect)
		}
	}
	for k, v := range out.Context {
		switch v := v.(type) {
		case nil, string:
		case json.Number:
			out.Context[k] = v.String()
		case bool:
			out.Context[k] = strconv.FormatBool(v)
		default:
			return nil, fmt.Errorf("context value %q is not a string, number or boolean", k)
		}
	}
	return &out, nil
}

// allows evaluates the policy for an execute-api:Invoke of methodArn as IAM
// does: an explicit Deny wins, otherwise an Allow is needed. explicitDeny
// tells the two refusals apart (API Gateway words them differently).
func (p *policyDocument) allows(methodArn string) (allowed, explicitDeny bool) {
	for _, s := range p.Statement {
		if !s.applies(methodArn) {
			continue
		}
		if s.Effect == "Deny" {
			return false, true
		}
		allowed = true
	}
	return allowed, false
}

func (s statement) applies(methodArn string) bool {
	action := false
	for _, a := range s.Action {
		action = action || wildcardMatch(strings.ToLower(a), "execute-api:invoke")
	}
	if !action {
		return false
	}
	for _, r := range s.Resource {
		if wildcardMatch(r, methodArn) {
			return true
		}
	}
	return false
}

// wildcardMatch reports whether s matches pattern, where * matches any run of
// characters (including none, ':' and '/') and ? exactly one, as in IAM.
func wildcardMatch(pattern, s string) bool {
	p, i := 0, 0
	star, mark := -1, 0 // position of the last * in pattern, and of s when it was met
	for i < len(s) {
		switch {
		case p < len(pattern) && (pattern[p] == '?' || pattern[p] == s[i]):
			p, i = p+1, i+1
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, i
			p++
		case star >= 0:
			mark++
			p, i = star+1, mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}
