package requestid_test

import (
	"regexp"
	"testing"

	"github.com/agentplatform/workspaceapi/infra/requestid"
)

func TestARequestIDIsARandomVersion4UUID(t *testing.T) {
	form := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	a, b := requestid.New(), requestid.New()
	if !form.MatchString(a) {
		t.Errorf("got %q, want a version 4 UUID", a)
	}
	if a == b {
		t.Errorf("two ids are both %q, want them random", a)
	}
}
