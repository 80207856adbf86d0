package release_test

import (
	"os"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/agentplatform/workspaceapi/shared/release"
)

// The template's Release mapping is the version the Migrations custom
// resource carries and the stack's Version output shows: it must be the
// code's, or a deploy would run (or skip) the wrong release's migrations.
func TestTheTemplateIsThisRelease(t *testing.T) {
	data, err := os.ReadFile("../../template.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var tmpl struct {
		Mappings struct {
			Release struct {
				Current struct {
					Version string `yaml:"Version"`
				} `yaml:"Current"`
			} `yaml:"Release"`
		} `yaml:"Mappings"`
		Resources struct {
			Migrations struct {
				Properties struct {
					Version yaml.Node `yaml:"Version"`
				} `yaml:"Properties"`
			} `yaml:"Migrations"`
		} `yaml:"Resources"`
	}
	if err := yaml.Unmarshal(data, &tmpl); err != nil {
		t.Fatal(err)
	}
	if got := tmpl.Mappings.Release.Current.Version; got != release.Version {
		t.Errorf("template.yaml's Release mapping is %q, the code is %q", got, release.Version)
	}
	v := tmpl.Resources.Migrations.Properties.Version
	if v.Tag != "!FindInMap" || len(v.Content) != 3 || v.Content[0].Value != "Release" || v.Content[2].Value != "Version" {
		t.Errorf("the Migrations custom resource's Version is not the Release mapping's: %s %v", v.Tag, v.Content)
	}
}

func TestCompareOrdersVersionsNumerically(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"2.0.0", "1.0.0", 1},
		{"1.10.0", "1.9.0", 1},
		{"1.0.0", "1.0.0", 0},
		{"1.0.0", "2.0.0", -1},
		{"", "1.0.0", -1},
		{"x.y.z", "0.0.1", -1},
	} {
		if got := release.Compare(c.a, c.b); got != c.want {
			t.Errorf("Compare(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
