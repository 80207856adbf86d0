package awscalls_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// grant is one action on one resource of a function's policy, or one that a
// call needs. Resources are named as the recorder names them, with the
// stack's own resources by logical id: "table", "table/index/GSI1",
// "queue/<LogicalId>", "event-bus/<LogicalId>", "ses-identity/<address>",
// "ses-domain/<domain>".
type grant struct {
	action, resource string
	// wildcardIndex marks a grant on index/* (every index of the table).
	wildcardIndex bool
}

// covers reports whether g, a policy's grant, authorizes need, a call's.
// SES authorizes a sender by its address's identity or its domain's.
func (g grant) covers(need grant) bool {
	if g.action != need.action {
		return false
	}
	if g.resource == need.resource {
		return true
	}
	if domain, ok := strings.CutPrefix(g.resource, "ses-domain/"); ok {
		addr, isSES := strings.CutPrefix(need.resource, "ses-identity/")
		return isSES && strings.HasSuffix(addr, "@"+domain)
	}
	return false
}

// templatePolicies is what template.yaml grants each function.
type templatePolicies struct {
	functions []string
	grants    map[string][]grant
	// destinations are the queues Lambda sends a function's failed events to
	// with the function's own role (on-failure destinations): a grant of
	// sqs:SendMessage on them is required by configuration, not by code.
	destinations map[string][]string
}

func (p templatePolicies) allows(fn string, need grant) bool {
	for _, g := range p.grants[fn] {
		if g.covers(need) {
			return true
		}
	}
	return false
}

func (p templatePolicies) requiredByConfig(fn string, g grant) bool {
	if g.action != "sqs:SendMessage" {
		return false
	}
	for _, q := range p.destinations[fn] {
		if g.resource == q {
			return true
		}
	}
	return false
}

// readPolicies reads every AWS::Serverless::Function's inline policy
// statements. It fails the test on a policy form it cannot read (a managed
// policy, a SAM policy template), so nothing is granted unseen.
func readPolicies(t *testing.T, path string) templatePolicies {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	root := doc.Content[0]
	resources := get(root, "Resources")
	types := map[string]string{}
	for name, res := range pairs(resources) {
		types[name] = scalar(get(res, "Type"))
	}
	ev := evaluator{types: types, params: map[string]string{"MailFrom": mailFrom}}
	p := templatePolicies{grants: map[string][]grant{}, destinations: map[string][]string{}}
	for name, res := range pairs(resources) {
		if types[name] != "AWS::Serverless::Function" {
			continue
		}
		p.functions = append(p.functions, name)
		props := get(res, "Properties")
		for _, pol := range seq(get(props, "Policies")) {
			stmts := get(pol, "Statement")
			if stmts == nil {
				t.Fatalf("%s: a policy other than inline statements (%s) cannot be checked against the calls", name, describe(pol))
			}
			for _, st := range seq(stmts) {
				if scalar(get(st, "Effect")) != "Allow" {
					continue
				}
				for _, a := range seqOrOne(get(st, "Action")) {
					for _, r := range seqOrOne(get(st, "Resource")) {
						res, err := ev.resource(r)
						if err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						g := grant{action: scalar(a), resource: res}
						if strings.HasSuffix(res, "/index/*") {
							g.wildcardIndex = true
						}
						p.grants[name] = append(p.grants[name], g)
					}
				}
			}
		}
		var dests []*yaml.Node
		dests = append(dests, get(get(get(get(props, "EventInvokeConfig"), "DestinationConfig"), "OnFailure"), "Destination"))
		for _, e := range pairs(get(props, "Events")) {
			dests = append(dests, get(get(get(get(e, "Properties"), "DestinationConfig"), "OnFailure"), "Destination"))
		}
		for _, d := range dests {
			if d == nil {
				continue
			}
			q, err := ev.resource(d)
			if err != nil {
				t.Fatalf("%s: destination: %v", name, err)
			}
			p.destinations[name] = append(p.destinations[name], q)
		}
	}
	return p
}

// evaluator resolves the intrinsic functions the policies use.
type evaluator struct {
	types  map[string]string
	params map[string]string
}

// resource names what an ARN node points to (see grant).
func (e evaluator) resource(n *yaml.Node) (string, error) {
	switch n.Tag {
	case "!GetAtt":
		return e.getAtt(n.Value)
	case "!Sub":
		text, vars := n.Value, map[string]string{}
		if n.Kind == yaml.SequenceNode {
			text = n.Content[0].Value
			for k, v := range pairs(n.Content[1]) {
				s, err := e.value(v)
				if err != nil {
					return "", err
				}
				vars[k] = s
			}
		}
		return e.sub(text, vars)
	}
	if n.Value == "*" {
		return "*", nil
	}
	return "", fmt.Errorf("resource %s: not an ARN of the stack", describe(n))
}

func (e evaluator) getAtt(ref string) (string, error) {
	name, attr, _ := strings.Cut(ref, ".")
	switch {
	case e.types[name] == "AWS::DynamoDB::Table" && attr == "Arn":
		return "table", nil
	case e.types[name] == "AWS::SQS::Queue" && attr == "Arn":
		return "queue/" + name, nil
	case e.types[name] == "AWS::Events::EventBus" && attr == "Arn":
		return "event-bus/" + name, nil
	}
	return "", fmt.Errorf("!GetAtt %s: not a resource the check knows", ref)
}

// sub resolves a !Sub string: ${Table.Arn}/index/NAME, or an SES identity.
func (e evaluator) sub(text string, vars map[string]string) (string, error) {
	if rest, ok := strings.CutPrefix(text, "${"); ok {
		ref, tail, _ := strings.Cut(rest, "}")
		base, err := e.getAtt(ref)
		if err != nil {
			return "", err
		}
		return base + tail, nil
	}
	const ses = "arn:${AWS::Partition}:ses:${AWS::Region}:${AWS::AccountId}:identity/"
	if id, ok := strings.CutPrefix(text, ses); ok {
		for k, v := range vars {
			id = strings.ReplaceAll(id, "${"+k+"}", v)
		}
		for k, v := range e.params {
			id = strings.ReplaceAll(id, "${"+k+"}", v)
		}
		if strings.Contains(id, "@") {
			return "ses-identity/" + id, nil
		}
		return "ses-domain/" + id, nil
	}
	return "", fmt.Errorf("!Sub %q: not an ARN the check knows", text)
}

// value evaluates !Ref of a parameter, !Select and !Split.
func (e evaluator) value(n *yaml.Node) (string, error) {
	switch n.Tag {
	case "!Ref":
		if v, ok := e.params[n.Value]; ok {
			return v, nil
		}
	case "!Select":
		var idx int
		if _, err := fmt.Sscan(n.Content[0].Value, &idx); err != nil {
			return "", err
		}
		list := n.Content[1]
		if list.Tag == "!Split" {
			s, err := e.value(list.Content[1])
			if err != nil {
				return "", err
			}
			parts := strings.Split(s, list.Content[0].Value)
			if idx < len(parts) {
				return parts[idx], nil
			}
		}
	}
	return "", fmt.Errorf("value %s: not one the check can evaluate", describe(n))
}

func get(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func pairs(n *yaml.Node) func(func(string, *yaml.Node) bool) {
	return func(yield func(string, *yaml.Node) bool) {
		if n == nil || n.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if !yield(n.Content[i].Value, n.Content[i+1]) {
				return
			}
		}
	}
}

func seq(n *yaml.Node) []*yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}

// seqOrOne is a list's elements, or a lone value as a list of one (Action
// and Resource take either form). A tagged sequence (!Sub [..]) is one value.
func seqOrOne(n *yaml.Node) []*yaml.Node {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.SequenceNode && (n.Tag == "!!seq" || n.Tag == "") {
		return n.Content
	}
	return []*yaml.Node{n}
}

func scalar(n *yaml.Node) string {
	if n == nil {
		return ""
	}
	return n.Value
}

func describe(n *yaml.Node) string {
	b, _ := yaml.Marshal(n)
	return strings.TrimSpace(string(b))
}
