package workspace_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

func fiftyTags() []string {
	var tags []string
	for i := range workspace.MaxTags {
		tags = append(tags, fmt.Sprintf("t%02d", i))
	}
	return tags
}

func TestTagChangeApply(t *testing.T) {
	tests := []struct {
		name        string
		mode        workspace.TagMode
		tags        []string
		current     []string
		want        []string
		wantChanged bool
		wantErr     error
	}{
		{"add appends the missing tags in the order given", workspace.TagModeAdd, []string{"b", "c", "a"}, []string{"a"}, []string{"a", "b", "c"}, true, nil},
		{"an empty mode adds", "", []string{"x"}, nil, []string{"x"}, true, nil},
		{"repeats collapse", workspace.TagModeAdd, []string{"x", "x", "y", "x"}, nil, []string{"x", "y"}, true, nil},
		{"tags are case-sensitive", workspace.TagModeAdd, []string{"Ops"}, []string{"ops"}, []string{"ops", "Ops"}, true, nil},
		{"adding tags already held is unchanged", workspace.TagModeAdd, []string{"a"}, []string{"a", "b"}, []string{"a", "b"}, false, nil},
		{"add with [] is an unchanged no-op", workspace.TagModeAdd, []string{}, []string{"a"}, []string{"a"}, false, nil},
		{"remove deletes the listed tags and keeps the order", workspace.TagModeRemove, []string{"b"}, []string{"a", "b", "c"}, []string{"a", "c"}, true, nil},
		{"remove with [] is an unchanged no-op", workspace.TagModeRemove, []string{}, []string{"a"}, []string{"a"}, false, nil},
		{"removing tags not held is unchanged", workspace.TagModeRemove, []string{"z"}, []string{"a"}, []string{"a"}, false, nil},
		{"set replaces the list", workspace.TagModeSet, []string{"c", "a"}, []string{"a", "b"}, []string{"c", "a"}, true, nil},
		{"set with the same set in another order is unchanged, order kept", workspace.TagModeSet, []string{"b", "a"}, []string{"a", "b"}, []string{"a", "b"}, false, nil},
		{"set with [] clears", workspace.TagModeSet, []string{}, []string{"a"}, []string{}, true, nil},
		{"set with [] on no tags is unchanged", workspace.TagModeSet, []string{}, nil, []string{}, false, nil},
		{"an add to exactly 50 succeeds", workspace.TagModeAdd, []string{"t49"}, fiftyTags()[:49], fiftyTags(), true, nil},
		{"an add past 50 fails and changes nothing", workspace.TagModeAdd, []string{"new"}, fiftyTags(), fiftyTags(), false, workspace.ErrTooManyTags},
		{"an add of held tags at 50 is unchanged, not a failure", workspace.TagModeAdd, []string{"t00"}, fiftyTags(), fiftyTags(), false, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := workspace.NewTagChange(tc.tags, tc.mode)
			if err != nil {
				t.Fatalf("NewTagChange: %v", err)
			}
			got, changed, err := c.Apply(tc.current)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error %v, want %v", err, tc.wantErr)
			}
			if !slices.Equal(got, tc.want) || changed != tc.wantChanged {
				t.Errorf("got %q changed=%v, want %q changed=%v", got, changed, tc.want, tc.wantChanged)
			}
		})
	}
}

func TestNewTagChangeRefusesBadRequests(t *testing.T) {
	tests := []struct {
		name    string
		tags    []string
		mode    workspace.TagMode
		wantErr string
	}{
		{"tags missing", nil, workspace.TagModeAdd, "tags is required"},
		{"an empty tag", []string{"a", ""}, workspace.TagModeAdd, "tags[1] must be 1 to 50 characters after trimming"},
		{"a blank tag", []string{" \t "}, workspace.TagModeAdd, "tags[0] must be 1 to 50 characters after trimming"},
		{"a tag over 50 characters", []string{strings.Repeat("é", 51)}, workspace.TagModeAdd, "tags[0] must be 1 to 50 characters"},
		{"a tag holding NUL", []string{"a\x00b"}, workspace.TagModeAdd, "tags[0] holds U+0000, a control character"},
		{"a tag holding a right-to-left override", []string{"x", "gpj\u202eexe"}, workspace.TagModeAdd, "tags[1] holds U+202E, an invisible format character"},
		{"a tag of nothing visible", []string{"\u200b"}, workspace.TagModeAdd, "tags[0] holds U+200B"},
		{"a tag of a Hangul filler", []string{"\u3164"}, workspace.TagModeAdd, "tags[0] must hold at least one visible character"},
		{"51 tags", append(fiftyTags(), "x"), workspace.TagModeSet, "at most 50 tags"},
		{"an unknown mode", []string{"a"}, "replace", "mode must be add, remove or set"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := workspace.NewTagChange(tc.tags, tc.mode)
			if workspace.KindOf(err) != workspace.KindInvalid || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error %v, want a KindInvalid error mentioning %q", err, tc.wantErr)
			}
		})
	}
	if _, err := workspace.NewTagChange([]string{strings.Repeat("é", 50)}, workspace.TagModeAdd); err != nil {
		t.Errorf("a tag of 50 characters: %v, want it accepted", err)
	}
}

func TestTeamNameIsTrimmedAndBounded(t *testing.T) {
	tests := []struct {
		raw, want string
		valid     bool
	}{
		{"  Support  ", "Support", true},
		{strings.Repeat("ü", 100), strings.Repeat("ü", 100), true},
		{strings.Repeat("a", 101), "", false},
		{"   ", "", false},
		{"", "", false},
	}
	for _, tc := range tests {
		got, err := workspace.TeamName(tc.raw)
		if (err == nil) != tc.valid || got != tc.want {
			t.Errorf("TeamName(%q) = %q, %v; want %q, valid=%v", tc.raw, got, err, tc.want, tc.valid)
		}
	}
	if workspace.TeamNameKey(" Support ") != workspace.TeamNameKey("SUPPORT") {
		t.Errorf("team names must compare case-insensitively after trimming")
	}
}

func TestInScopeTeamKeysSeeTheirTeamAndItsAgentsOnly(t *testing.T) {
	tests := []struct {
		name              string
		kind              workspace.Taggable
		id, teamID, scope string
		want              bool
	}{
		{"workspace key sees a member", workspace.TaggableMember, "u1", "", "", true},
		{"workspace key sees any agent", workspace.TaggableAgent, "a1", "t2", "", true},
		{"workspace key sees any team", workspace.TaggableTeam, "t2", "", "", true},
		{"team key sees its team", workspace.TaggableTeam, "t1", "", "t1", true},
		{"team key does not see another team", workspace.TaggableTeam, "t2", "", "t1", false},
		{"team key sees its team's agent", workspace.TaggableAgent, "a1", "t1", "t1", true},
		{"team key does not see another team's agent", workspace.TaggableAgent, "a1", "t2", "t1", false},
		{"team key does not see an agent without a team", workspace.TaggableAgent, "a1", "", "t1", false},
		{"team key sees no member", workspace.TaggableMember, "u1", "", "t1", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.kind.InScope(tc.id, tc.teamID, tc.scope); got != tc.want {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}
