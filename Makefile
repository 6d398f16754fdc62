# Portal: `make run` starts the whole portal on http://127.0.0.1:8080;
# `make test` runs every check and test the project has.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
CARGO ?= cargo
NPM ?= npm

.PHONY: run test web web-deps contracts-release check rust-test web-test e2e api-check examples image image-lint k8s-check restore-drill upgrade-drill bench clean

# Demo accounts (published passwords) only here, and said so; an explicit
# PORTAL_SEED_DEMO=false in the environment still wins.
run: web
	$(CARGO) build --release --locked --bin portal
	@echo "make run: loading demo data and demo accounts (PORTAL_SEED_DEMO=$${PORTAL_SEED_DEMO:-true}); start with PORTAL_SEED_DEMO=false for none"
	PORTAL_SEED_DEMO=$${PORTAL_SEED_DEMO:-true} ./target/release/portal

web-deps: web/node_modules/.package-lock.json
# `npm install`, not `npm ci`: the registry mirror lacks some other platforms'
# optional binaries at the locked versions, so the lock can never list them all
# and `npm ci` refuses it; `npm install` still installs the locked versions.
web/node_modules/.package-lock.json: web/package.json web/package-lock.json
	cd web && $(NPM) install --no-audit --no-fund
	@touch $@

web: web-deps
	cd web && $(NPM) run build

test: check rust-test web-test e2e api-check examples image-lint k8s-check restore-drill
	@echo "make test: all checks passed"

# v1 only grows: `make check` holds the contracts to those of the last release
# (a buf image without source info); at a release, `make contracts-release`
# makes the contracts as they are then the ones later changes are held to.
RELEASED_CONTRACTS := tools/contracts/released-v1.binpb

contracts-release: web-deps
	cd web && npx buf build .. --exclude-source-info -o ../$(RELEASED_CONTRACTS)

check: web-deps
	python3 tools/house-check.py
	python3 tools/routes.py --check
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets --locked -- -D warnings
	cd web && npx buf lint ..
	cd web && npx buf breaking .. --against ../$(RELEASED_CONTRACTS)
	cd web && $(NPM) run typecheck
	cd web && $(NPM) run lint

rust-test:
	$(CARGO) test --workspace --locked

web-test: web-deps
	cd web && $(NPM) test

# The browser and grpc-web tests run against the real binary and web build.
e2e: web
	$(CARGO) build --locked --bin portal
	cd web && PORTAL_BIN=../target/debug/portal $(NPM) run test:grpc
	cd web && PORTAL_BIN=../target/debug/portal $(NPM) run e2e

# schemathesis calls every operation of the API document on the real binary, as
# the admin, a few examples each (tools/api-check.sh); 0 failures or it fails.
api-check:
	$(CARGO) build --locked --bin portal
	bash tools/api-check.sh

# The integration guide's two example clients (docs/integration.md), Python
# (grpcio, requests-oauthlib; examples/python/requirements.txt) and Rust (tonic),
# run against the real binary as a hospital system would use it (examples/run.sh).
examples:
	$(CARGO) build --locked --bin portal
	$(CARGO) build --locked -p portal-example-client
	bash examples/run.sh

# One image for every target (Containerfile). No engine runs on the CI machine,
# so `make test` lints the file instead of building it.
IMAGE ?= localhost/portal
image:
	@engine="$$(command -v podman || command -v docker || true)"; \
	if [ -z "$$engine" ] || ! "$$engine" info >/dev/null 2>&1; then \
	  echo "make image: needs a running podman or docker engine; none here" >&2; exit 1; \
	fi; \
	"$$engine" build -f Containerfile -t $(IMAGE):dev -t $(IMAGE):$$(git rev-parse --short HEAD) .

image-lint:
	bash tools/venv.sh
	.tools/venv/bin/hadolint Containerfile

# Renders, validates and scans the Kubernetes manifests offline (k8s/check.sh).
k8s-check:
	bash k8s/check.sh

# k8s/README.md «Restore», its SQL half for real: PostgreSQL servers of its own
# (this machine's binaries, a temporary directory, never its running server), a
# base backup and archived WAL, restores to a moment and to the end counted against
# every acknowledged write, and the portal's check of the restored schema
# (k8s/restore-drill.sh, ~40 s). Without PostgreSQL it says SKIPPED, a failure
# under PORTAL_REQUIRE_E2E=1 (CI).
restore-drill:
	$(CARGO) build --locked --bin portal
	DRILL_REQUIRED=$${PORTAL_REQUIRE_E2E:-} PORTAL_BIN=target/debug/portal bash k8s/restore-drill.sh

# k8s/README.md's upgrade and rollback across two real releases: the newest v*
# tag (or UPGRADE_DRILL_FROM=<ref>) built beside today's binary, the split
# topology on PostgreSQL servers of its own, upgraded and rolled back under a write
# load, every acknowledged write counted (k8s/upgrade-drill.sh). Not in `make
# test`: it builds a second binary.
upgrade-drill:
	$(CARGO) build --locked --bin portal
	PORTAL_BIN=target/debug/portal bash k8s/upgrade-drill.sh

# Release build; prints tables of ratios against baselines measured in the same run,
# then the web client's first load in bytes and its Lighthouse scores (web/scripts/bench-web.ts).
bench: web
	$(CARGO) bench --locked -p portal-gateway --bench identity
	$(CARGO) bench --locked -p portal-auth --bench sign_in
	$(CARGO) bench --locked -p portal-gateway --bench education
	$(CARGO) bench --locked -p portal-gateway --bench files
	$(CARGO) bench --locked -p portal-gateway --bench staff_sync
	$(CARGO) bench --locked -p portal-gateway --bench training
	$(CARGO) bench --locked -p portal-gateway --bench search
	cd web && PORTAL_BIN=../target/release/portal $(NPM) run bench

clean:
	$(CARGO) clean
	rm -rf web/dist web/node_modules web/src/gen
