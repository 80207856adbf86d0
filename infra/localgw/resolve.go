package localgw

import (
	"errors"
	"fmt"
	"iter"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// str resolves a scalar, !Ref (to a parameter's Default, or to a resource's
// logical id) or {Ref: ...}.
func (p *parser) str(n *yaml.Node) (string, error) {
	n = deref(n)
	switch {
	case n == nil:
		return "", errors.New("missing")
	case n.ShortTag() == "!Ref" && n.Kind == yaml.ScalarNode:
		return p.ref(n.Value)
	case n.Kind == yaml.MappingNode && len(n.Content) == 2 && n.Content[0].Value == "Ref":
		return p.ref(deref(n.Content[1]).Value)
	case n.Kind == yaml.ScalarNode && n.ShortTag() != "!!null" && strings.HasPrefix(n.ShortTag(), "!!"):
		return n.Value, nil
	}
	return "", fmt.Errorf("line %d: cannot resolve %s", n.Line, describe(n))
}

func (p *parser) ref(name string) (string, error) {
	if v, ok := p.params[name]; ok {
		return v, nil
	}
	if _, ok := p.resources[name]; ok {
		return name, nil
	}
	return "", fmt.Errorf("cannot resolve !Ref %s (not a parameter with a Default, nor a resource)", name)
}

func (p *parser) strs(n *yaml.Node) ([]string, error) {
	n = deref(n)
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil, errors.New("not a list")
	}
	var out []string
	for _, item := range n.Content {
		s, err := p.str(item)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// boolean resolves a true or false, written as such or as a string.
func (p *parser) boolean(n *yaml.Node) (bool, error) {
	s, err := p.str(n)
	if err != nil {
		return false, err
	}
	switch strings.ToLower(s) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("%q is neither true nor false", s)
}

func (p *parser) seconds(n *yaml.Node) (time.Duration, error) {
	s, err := p.str(n)
	if err != nil {
		return 0, err
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%q is not a number of seconds", s)
	}
	return time.Duration(v) * time.Second, nil
}

// timeout resolves a function's Timeout.
func (p *parser) timeout(n *yaml.Node) (time.Duration, error) {
	d, err := p.seconds(n)
	if err == nil && d == 0 {
		err = errors.New("a function's timeout is at least 1 second")
	}
	return d, err
}

// functionArn resolves !GetAtt F.Arn, !GetAtt [F, Arn] or {Fn::GetAtt: ...}
// to the logical id F of a function of the template.
func (p *parser) functionArn(n *yaml.Node) (string, error) {
	n = deref(n)
	if n != nil && n.Kind == yaml.MappingNode && len(n.Content) == 2 && n.Content[0].Value == "Fn::GetAtt" {
		n = deref(n.Content[1])
	} else if n == nil || n.ShortTag() != "!GetAtt" {
		return "", fmt.Errorf("want !GetAtt <Function>.Arn, got %s", describe(n))
	}
	var id, attr string
	switch n.Kind {
	case yaml.ScalarNode:
		id, attr, _ = strings.Cut(n.Value, ".")
	case yaml.SequenceNode:
		if len(n.Content) == 2 {
			id, attr = deref(n.Content[0]).Value, deref(n.Content[1]).Value
		}
	}
	if attr != "Arn" {
		return "", fmt.Errorf("want !GetAtt <Function>.Arn, got %s", describe(n))
	}
	if _, ok := p.t.functions[id]; !ok {
		return "", fmt.Errorf("%s is not an AWS::Serverless::Function of the template", id)
	}
	return id, nil
}

func resourceType(res *yaml.Node) string {
	if v := lookup(res, "Type"); v != nil {
		return v.Value
	}
	return ""
}

// lookup returns the value of key in mapping node n, or nil.
func lookup(n *yaml.Node, key string) *yaml.Node {
	for k, v := range pairs(n) {
		if k == key {
			return v
		}
	}
	return nil
}

// pairs yields the keys and values of mapping node n, in order; nothing when
// n is not a mapping.
func pairs(n *yaml.Node) iter.Seq2[string, *yaml.Node] {
	return func(yield func(string, *yaml.Node) bool) {
		n = deref(n)
		if n == nil || n.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if !yield(deref(n.Content[i]).Value, deref(n.Content[i+1])) {
				return
			}
		}
	}
}

func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

func describe(n *yaml.Node) string {
	switch {
	case n == nil:
		return "nothing"
	case n.Kind == yaml.ScalarNode:
		return strings.TrimSpace(n.ShortTag() + " " + n.Value)
	case n.Kind == yaml.SequenceNode:
		return n.ShortTag() + " list"
	default:
		return n.ShortTag() + " mapping"
	}
}
