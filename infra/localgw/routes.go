package localgw

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Segment kinds, from most to least specific: at each segment API Gateway
// prefers a literal resource to a {param} one, and a {param} to a {proxy+}.
const (
	literalSegment = iota
	paramSegment
	greedySegment
)

// match finds the route of a request, as API Gateway's REST APIs do: first the
// most specific resource (template path) matching the raw request path, then
// that resource's method, or its ANY method. It returns nil when there is no
// such resource, or the resource does not serve the method; it never falls
// back to a less specific resource. Path parameters are the raw (still
// percent-encoded) segments, as REST APIs pass them; nil when there are none.
func (t *Template) match(method, rawPath string) (*route, map[string]string) {
	segments, ok := requestSegments(rawPath)
	if !ok {
		return nil, nil
	}
	var best []int // segment kinds of the best resource so far
	var resource string
	for i := range t.routes {
		kinds, ok := matchSegments(t.routes[i].segments, segments)
		if ok && (best == nil || slices.Compare(kinds, best) < 0) {
			best, resource = kinds, t.routes[i].Path
		}
	}
	if best == nil {
		return nil, nil
	}
	var found *route
	for i := range t.routes {
		r := &t.routes[i]
		if r.Path != resource {
			continue
		}
		if r.Method == method {
			found = r
			break
		}
		if r.Method == "ANY" {
			found = r
		}
	}
	if found == nil {
		return nil, nil
	}
	return found, pathParameters(found.segments, segments)
}

// requestSegments splits a request path; an empty segment (a trailing or
// doubled slash) matches no resource.
func requestSegments(rawPath string) ([]string, bool) {
	if rawPath == "/" {
		return []string{}, true
	}
	if !strings.HasPrefix(rawPath, "/") {
		return nil, false
	}
	segments := strings.Split(rawPath[1:], "/")
	if slices.Contains(segments, "") {
		return nil, false
	}
	return segments, true
}

// matchSegments reports whether a template path matches the request segments,
// and the kind of each template segment that matched.
func matchSegments(tmpl, req []string) ([]int, bool) {
	kinds := make([]int, 0, len(tmpl))
	for i, s := range tmpl {
		_, isParam, greedy := paramName(s)
		switch {
		case greedy:
			return append(kinds, greedySegment), i < len(req)
		case i >= len(req):
			return nil, false
		case isParam:
			kinds = append(kinds, paramSegment)
		case s == req[i]:
			kinds = append(kinds, literalSegment)
		default:
			return nil, false
		}
	}
	return kinds, len(tmpl) == len(req)
}

func pathParameters(tmpl, req []string) map[string]string {
	var params map[string]string
	for i, s := range tmpl {
		name, isParam, greedy := paramName(s)
		if !isParam {
			continue
		}
		if params == nil {
			params = map[string]string{}
		}
		if greedy {
			params[name] = strings.Join(req[i:], "/")
		} else {
			params[name] = req[i]
		}
	}
	return params
}

// templateSegments splits a template path such as /teams/{teamId} and checks
// that every segment is literal, {name}, or (last) the greedy {name+}.
func templateSegments(path string) ([]string, error) {
	if !strings.HasPrefix(path, "/") {
		return nil, errors.New("does not start with /")
	}
	if path == "/" {
		return nil, nil
	}
	segments := strings.Split(path[1:], "/")
	for i, s := range segments {
		name, isParam, greedy := paramName(s)
		switch {
		case s == "":
			return nil, errors.New("has an empty segment")
		case isParam && name == "":
			return nil, fmt.Errorf("segment %q has no parameter name", s)
		case greedy && i != len(segments)-1:
			return nil, fmt.Errorf("greedy segment %q is not the last", s)
		case !isParam && strings.ContainsAny(s, "{}"):
			return nil, fmt.Errorf("segment %q: a parameter must be a whole segment", s)
		}
	}
	return segments, nil
}

// checkVariableSiblings applies API Gateway's rule that a resource has at
// most one variable child: /a/{x} and /a/{y}/b cannot both exist.
func checkVariableSiblings(routes []route) error {
	variable := map[string]string{} // parent path -> its variable child segment
	for _, r := range routes {
		for i, s := range r.segments {
			if _, isParam, _ := paramName(s); !isParam {
				continue
			}
			parent := "/" + strings.Join(r.segments[:i], "/")
			if other, ok := variable[parent]; ok && other != s {
				return fmt.Errorf("route %s: %s has two variable children, %s and %s", r.Route, parent, other, s)
			}
			variable[parent] = s
		}
	}
	return nil
}

// paramName reports whether a template segment is a {name} or greedy {name+}
// parameter, and its name.
func paramName(segment string) (name string, isParam, greedy bool) {
	inner, ok := strings.CutPrefix(segment, "{")
	if inner, ok2 := strings.CutSuffix(inner, "}"); ok && ok2 {
		name, greedy = strings.CutSuffix(inner, "+")
		return name, true, greedy
	}
	return "", false, false
}
