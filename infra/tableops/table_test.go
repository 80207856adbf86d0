package tableops_test

import (
	"os"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"go.yaml.in/yaml/v3"

	"github.com/agentplatform/workspaceapi/infra/tableops"
	"github.com/agentplatform/workspaceapi/shared/dynamo"
)

// templateTable is the part of template.yaml's Table resource the code must match.
type templateTable struct {
	Resources struct {
		Table struct {
			Properties struct {
				BillingMode            string                         `yaml:"BillingMode"`
				AttributeDefinitions   []present[attributeDefinition] `yaml:"AttributeDefinitions"`
				KeySchema              []keyElement                   `yaml:"KeySchema"`
				GlobalSecondaryIndexes []present[index]               `yaml:"GlobalSecondaryIndexes"`
				StreamSpecification    struct {
					StreamViewType string `yaml:"StreamViewType"`
				} `yaml:"StreamSpecification"`
				TimeToLiveSpecification struct {
					AttributeName string `yaml:"AttributeName"`
					Enabled       bool   `yaml:"Enabled"`
				} `yaml:"TimeToLiveSpecification"`
			} `yaml:"Properties"`
		} `yaml:"Table"`
	} `yaml:"Resources"`
}

type attributeDefinition struct {
	AttributeName string `yaml:"AttributeName"`
	AttributeType string `yaml:"AttributeType"`
}

type index struct {
	IndexName  string       `yaml:"IndexName"`
	KeySchema  []keyElement `yaml:"KeySchema"`
	Projection struct {
		ProjectionType string `yaml:"ProjectionType"`
	} `yaml:"Projection"`
}

// present[T] is a T of the template, or the T an !If gives when its
// condition holds: the code's table is the one a deploy without DeferIndex
// makes.
type present[T any] struct{ v T }

func (p *present[T]) UnmarshalYAML(n *yaml.Node) error {
	if n.Tag == "!If" && len(n.Content) == 3 {
		n = n.Content[1]
	}
	return n.Decode(&p.v)
}

type keyElement struct {
	AttributeName string `yaml:"AttributeName"`
	KeyType       string `yaml:"KeyType"`
}

func TestTableDefinitionMatchesTemplate(t *testing.T) {
	data, err := os.ReadFile("../../template.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var tmpl templateTable
	if err := yaml.Unmarshal(data, &tmpl); err != nil {
		t.Fatalf("parse template.yaml: %v", err)
	}
	want := tmpl.Resources.Table.Properties
	got := tableops.TableDefinition("t")

	if string(got.BillingMode) != want.BillingMode {
		t.Errorf("billing mode: code %s, template %s", got.BillingMode, want.BillingMode)
	}
	if len(got.AttributeDefinitions) != len(want.AttributeDefinitions) {
		t.Fatalf("attribute definitions: code %d, template %d", len(got.AttributeDefinitions), len(want.AttributeDefinitions))
	}
	for i, a := range got.AttributeDefinitions {
		if w := want.AttributeDefinitions[i].v; aws.ToString(a.AttributeName) != w.AttributeName || string(a.AttributeType) != w.AttributeType {
			t.Errorf("attribute %d: code %s %s, template %s %s", i, aws.ToString(a.AttributeName), a.AttributeType, w.AttributeName, w.AttributeType)
		}
	}
	sameKeys := func(what string, code []keyElement, tmpl []keyElement) {
		t.Helper()
		if len(code) != len(tmpl) {
			t.Errorf("%s: code %v, template %v", what, code, tmpl)
			return
		}
		for i := range code {
			if code[i] != tmpl[i] {
				t.Errorf("%s: code %v, template %v", what, code, tmpl)
			}
		}
	}
	var codeKeys []keyElement
	for _, k := range got.KeySchema {
		codeKeys = append(codeKeys, keyElement{aws.ToString(k.AttributeName), string(k.KeyType)})
	}
	sameKeys("key schema", codeKeys, want.KeySchema)
	if len(got.GlobalSecondaryIndexes) != len(want.GlobalSecondaryIndexes) {
		t.Fatalf("GSIs: code %d, template %d", len(got.GlobalSecondaryIndexes), len(want.GlobalSecondaryIndexes))
	}
	for i, g := range got.GlobalSecondaryIndexes {
		w := want.GlobalSecondaryIndexes[i].v
		if aws.ToString(g.IndexName) != w.IndexName || string(g.Projection.ProjectionType) != w.Projection.ProjectionType {
			t.Errorf("GSI %d: code %s/%s, template %s/%s", i, aws.ToString(g.IndexName), g.Projection.ProjectionType, w.IndexName, w.Projection.ProjectionType)
		}
		var k []keyElement
		for _, e := range g.KeySchema {
			k = append(k, keyElement{aws.ToString(e.AttributeName), string(e.KeyType)})
		}
		sameKeys("GSI "+w.IndexName, k, w.KeySchema)
	}
	if got, want := string(got.StreamSpecification.StreamViewType), want.StreamSpecification.StreamViewType; got != want {
		t.Errorf("stream view: code %q, template %q", got, want)
	}
	if ttl := want.TimeToLiveSpecification; !ttl.Enabled || ttl.AttributeName != dynamo.AttrTTL {
		t.Errorf("template TTL %+v, want enabled on %q", ttl, dynamo.AttrTTL)
	}
}

func TestLoopbackEndpoint(t *testing.T) {
	for endpoint, want := range map[string]bool{
		"http://127.0.0.1:8000":                        true,
		"https://127.0.0.1:8000":                       true,
		"http://127.4.5.6:8000":                        true,
		"http://[::1]:8000":                            true,
		"http://[::ffff:127.0.0.1]:8000":               true,
		"":                                             false, // AWS itself
		"http://localhost:8000":                        false, // a name: the resolver decides
		"http://0.0.0.0:8000":                          false,
		"http://10.0.0.8:8000":                         false,
		"https://dynamodb.eu-west-1.amazonaws.com":     false,
		"http://127.0.0.1.example.com:8000":            false,
		"http://127.0.0.l:8000":                        false, // a typo is remote
		"127.0.0.1:8000":                               false, // no scheme
		"ftp://127.0.0.1:8000":                         false,
		"http://[fe80::1%25lo]:8000":                   false,
		"http://user@dynamodb.amazonaws.com@127.0.0.1": false,
	} {
		if got := tableops.LoopbackEndpoint(endpoint); got != want {
			t.Errorf("LoopbackEndpoint(%q) = %t, want %t", endpoint, got, want)
		}
	}
}
