# Herald — the two commands a newcomer needs: `make dev` runs it, `make test` passes the tests.
# Everything else is a step of those two.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
MOCHA := npx mocha
export NODE_OPTIONS ?= --max-old-space-size=4096

# The image `make image` builds: push it to your registry and set the chart's image.repository.
IMAGE ?= herald:$(shell node -p "require('./package.json').version")

.PHONY: image kube-up dev test deps services typecheck build lint-regex lint-docs test-security test-unit test-integration test-dashboard test-kube test-chart test-node test-e2e test-faults bench-api bench-delivery bench-fairness e2e-kind clean clean-kube

## deps: npm packages (from the lock file) — every other target depends on it
deps: node_modules/.installed
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

## services: PostgreSQL, Redis, NATS JetStream and PgBouncer up on their usual ports (installs Debian packages if missing)
services: deps
	npx tsx scripts/ensure-services.ts

typecheck: deps
	npx tsc -p tsconfig.json --noEmit

build: deps
	rm -rf dist && npx tsc -p tsconfig.json && cp -r core/store/migrations dist/core/store/ && cp -r api/dashboard/assets dist/api/dashboard/

## image: the container image (Dockerfile) with docker, podman or buildah, tagged $(IMAGE); docs/install.md
image:
	bash scripts/image.sh "$(IMAGE)"
	@echo "built $(IMAGE): push it (docs/install.md, 'The image')"

## kube-up: a local kube-apiserver + etcd with Herald's CRDs, for trying the operator by hand;
## prints the KUBECONFIG to use and runs until Ctrl-C
kube-up: deps
	bash test/kube/build.sh >/dev/null
	npx tsx scripts/kube-up.ts

## dev: run Herald on this machine (api + sender + scheduler + APNs simulator), with a demo app and key
dev: deps
	bash scripts/dev.sh

## test: everything `make test` promises — unit, integration, Kubernetes tier, node tier, end-to-end
test: typecheck lint-regex lint-docs test-unit test-integration test-security test-dashboard test-kube test-chart test-node test-e2e test-faults

test-unit: deps
	$(MOCHA) 'api/**/*.test.ts' 'core/**/*.test.ts' 'sender/**/*.test.ts' 'controller/**/*.test.ts' 'cli/**/*.test.ts' 'apns-sim/**/*.test.ts' 'fcm-sim/**/*.test.ts'

## test-integration: two files at a time — each has its own database, stream names and Redis
## prefix (test/env), and most of their time is waiting on PostgreSQL, NATS and the simulator
## (8 min one at a time on a 2-core machine, 5.5 min two at a time)
test-integration: services
	bash bench/sink/build.sh >/dev/null   # the Go HTTP/2 sink of test/apns/lean-peers.test.ts
	$(MOCHA) --parallel --jobs 2 --spec 'test/api/**/*.test.ts' --spec 'test/cli/**/*.test.ts' --spec 'test/store/**/*.test.ts' --spec 'test/limits/**/*.test.ts' --spec 'test/apns/**/*.test.ts' --spec 'test/fcm/**/*.test.ts' --spec 'test/net/**/*.test.ts' --spec 'test/delivery/**/*.test.ts'

## lint-docs: every link of README.md and docs/ names a file of this repository
lint-docs: deps
	npx tsx tools/lint/doc-links.ts

## lint-regex: no regular expression in the sources can backtrack super-linearly
lint-regex: deps
	npx tsx tools/lint/regex.ts

## test-security: hostile input — fuzzing of validation and routes, secrets masked in logs
test-security: services
	$(MOCHA) --spec 'test/security/**/*.test.ts'

## test-dashboard: the OpenAPI document linted, and the dashboard in Debian's Chromium (installed if missing)
test-dashboard: services
	$(MOCHA) --timeout 120000 --spec 'test/dashboard/**/*.test.ts'

test-kube: services
	bash test/kube/build.sh >/dev/null
	$(MOCHA) --timeout 120000 --spec 'test/kube/**/*.test.ts' --spec 'test/controller/**/*.test.ts'

## test-chart: helm lint/template, schema refusals, the rendered chart on the real kube-apiserver,
## and the PrometheusRule through promtool check/test rules
test-chart: deps
	bash tools/helm/build.sh >/dev/null
	bash test/kube/build.sh >/dev/null
	bash scripts/ensure-promtool.sh
	$(MOCHA) --timeout 600000 --spec 'test/chart/**/*.test.ts'

## test-node: the node tier (root): a single-node Kubernetes on this machine, the image built from
## the Dockerfile, the chart installed with values-production.yaml, the smoke; test/node/README.md
test-node: services
	bash scripts/ensure-node-tier.sh
	bash tools/helm/build.sh >/dev/null
	bash test/kube/build.sh >/dev/null
	bash test/node/build.sh >/dev/null
	$(MOCHA) --timeout 600000 --spec 'test/node/**/*.test.ts'

test-e2e: services
	$(MOCHA) --timeout 300000 --spec 'test/e2e/**/*.test.ts'

## test-faults: start-up errors of every role, and the fault suite (private PostgreSQL, Redis and NATS
## started by the tests on free ports; the machine's own servers are never stopped; the controller
## faults run on the Kubernetes tier's kube-apiserver). The outages file runs once, through a
## private PgBouncer in transaction mode (the production values' shape; direct: run it by hand)
test-faults: services
	bash test/kube/build.sh >/dev/null
	$(MOCHA) --timeout 600000 --spec 'test/faults/**/*.test.ts' --exclude test/faults/outages.test.ts
	HERALD_TEST_THROUGH_PGBOUNCER=1 $(MOCHA) --timeout 600000 test/faults/outages.test.ts

bench-api: services build
	npx tsx bench/api/run.ts

bench-delivery: services
	npx tsx bench/delivery/run.ts

## bench-fairness: list sends' answer-to-last-device p50/p99, idle and during a 1,000,000-device broadcast
bench-fairness: services
	npx tsx bench/fairness/run.ts

## e2e-kind: the Helm chart on a kind cluster (machines with Docker only)
e2e-kind: deps
	bash test/kind/run.sh

clean:
	rm -rf dist node_modules .herald

## clean-kube: forget the cached kube-apiserver and etcd binaries (the next `make test` rebuilds them, ~8 min)
clean-kube:
	rm -rf "$${HERALD_KUBE_CACHE:-$$HOME/.cache/herald/kube}"
