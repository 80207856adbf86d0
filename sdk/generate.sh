#!/bin/sh
# Regenerates the SDKs' generated code from infra/apispec/openapi.yaml:
#   sdk/go/client.gen.go          (oapi-codegen, the go tool pinned in sdk/go/go.mod)
#   sdk/typescript/src/schema.gen.ts (openapi-typescript, pinned in sdk/typescript/package-lock.json)
# `make sdk` runs it; with --check (make test) it writes nothing and fails when
# what it generates differs from the files in the tree.
set -eu
cd "$(dirname "$0")/.."
spec="$PWD/infra/apispec/openapi.yaml"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# oapi-codegen writes where its configuration says: a copy says $tmp.
sed "s|^output: .*|output: $tmp/client.gen.go|" sdk/go/oapi-codegen.yaml > "$tmp/oapi-codegen.yaml"
(cd sdk/go && ${GO:-go} tool oapi-codegen -config "$tmp/oapi-codegen.yaml" "$spec")
(cd sdk/typescript && node_modules/.bin/openapi-typescript "$spec" --default-non-nullable false \
  --output "$tmp/schema.gen.ts" >/dev/null)
stale=
for pair in "client.gen.go sdk/go/client.gen.go" "schema.gen.ts sdk/typescript/src/schema.gen.ts"; do
  set -- $pair
  if [ "${CHECK:-}" = 1 ]; then
    cmp -s "$tmp/$1" "$2" || stale="$stale $2"
  else
    cp "$tmp/$1" "$2"
  fi
done
if [ -n "$stale" ]; then
  echo "sdk: generated code is stale:$stale" >&2
  echo "sdk: infra/apispec/openapi.yaml changed since it was generated; run 'make sdk' and commit the result" >&2
  exit 1
fi
