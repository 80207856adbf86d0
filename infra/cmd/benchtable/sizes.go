package main

import (
	"fmt"
	"os"

	"go.yaml.in/yaml/v3"
)

// maxBootstrapBytes is the size target of a bootstrap: 9 MB.
const maxBootstrapBytes = 9_000_000

// sizeToday is what the bootstraps measured before they were trimmed, for the row.
const sizeToday = "9.7-11.3 MB"

// sizes adds a row per function: its bootstrap as it ships (linux/arm64).
func (b *bench) sizes() {
	baselines := ""
	if hello, same := fileSize(b.arm64[helloID]), fileSize(b.arm64[sameCallsID]); hello > 0 && same > 0 {
		baselines = fmt.Sprintf("; hello-world %s, same-calls %s", mb(hello), mb(same))
	}
	for _, id := range b.fnIDs {
		if !b.s.want("size:" + id) {
			continue
		}
		n := fileSize(b.arm64[id])
		b.rows = append(b.rows, row{
			id: "size:" + id, measure: "bootstrap size (linux/arm64, as shipped)", subject: id,
			value: mb(n), against: "before trimming " + sizeToday + baselines, target: "≤ 9 MB", met: met(n > 0 && n <= maxBootstrapBytes),
		})
	}
}

// fileSize returns a file's size, 0 when it cannot be read.
func fileSize(path string) int64 {
	if path == "" {
		return 0
	}
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// templateMemory reads each function's MemorySize from the SAM template at
// path (its own, else the Globals', else Lambda's default 128), to show it
// beside the peak memory and give it to the bootstraps as Lambda does.
func templateMemory(path string) (map[string]int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	// Intrinsic functions (!Ref, !Sub) decode as the nodes they tag.
	var doc struct {
		Globals struct {
			Function struct {
				MemorySize int `yaml:"MemorySize"`
			} `yaml:"Function"`
		} `yaml:"Globals"`
		Resources map[string]struct {
			Type       string `yaml:"Type"`
			Properties struct {
				MemorySize yaml.Node `yaml:"MemorySize"`
			} `yaml:"Properties"`
		} `yaml:"Resources"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := map[string]int{}
	for id, r := range doc.Resources {
		if r.Type != "AWS::Serverless::Function" {
			continue
		}
		m := 128
		if doc.Globals.Function.MemorySize > 0 {
			m = doc.Globals.Function.MemorySize
		}
		var own int
		if r.Properties.MemorySize.Kind == yaml.ScalarNode && r.Properties.MemorySize.Decode(&own) == nil && own > 0 {
			m = own
		}
		out[id] = m
	}
	return out, nil
}
