#!/bin/sh
# The rollback check (make rollback-check): loads what this release writes
# (infra/upgrade/testdata/v<this release>.jsonl, written by
# TestWhatThisReleaseWrites) into the code of the previous release, checked
# out at PREVIOUS in a temporary worktree, and runs that release's paths on
# it with its own test, infra/upgrade/rollback/v<PREVIOUS_VERSION>_test.go.txt.
# DYNAMODB_ENDPOINT must name a running DynamoDB Local.
set -eu
: "${PREVIOUS:?give PREVIOUS=<the previous release's commit>}"
: "${PREVIOUS_VERSION:?give PREVIOUS_VERSION=<its version, e.g. 1.0.0>}"
: "${DYNAMODB_ENDPOINT:?give DYNAMODB_ENDPOINT=http://127.0.0.1:8000 (a running DynamoDB Local)}"
root=$(git rev-parse --show-toplevel)
version=$(sed -n 's/^const Version = "\(.*\)"$/\1/p' "$root/shared/release/release.go")
check="$root/infra/upgrade/rollback/v${PREVIOUS_VERSION}_test.go.txt"
[ -f "$check" ] || { echo "no rollback check for $PREVIOUS_VERSION: $check" >&2; exit 2; }
dir=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$dir/previous" >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
git -C "$root" worktree add --detach "$dir/previous" "$PREVIOUS" >/dev/null
mkdir "$dir/previous/infra/rollbackcheck"
cp "$check" "$dir/previous/infra/rollbackcheck/rollback_test.go"
cp "$root/infra/upgrade/testdata/v$version.jsonl" "$dir/previous/infra/rollbackcheck/items.jsonl"
sed 's/^package tableops$/package rollbackcheck/' "$root/infra/tableops/itemjson.go" > "$dir/previous/infra/rollbackcheck/itemjson.go"
echo "release $version's items read by release $PREVIOUS_VERSION ($PREVIOUS):"
status=0
(cd "$dir/previous" && go test -count=1 -v -run TestThePreviousReleaseReadsWhatThisOneWrote ./infra/rollbackcheck/) > "$dir/out" 2>&1 || status=$?
grep -v '^20[0-9][0-9]/' "$dir/out" || true
exit $status
