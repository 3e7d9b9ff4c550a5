# svcplane — the two commands a newcomer needs are `make up` and `make test`.
GO ?= go
BIN := bin/svcplane

.PHONY: build up test test-short test-drift conformance generate clean

build:
	$(GO) build -o $(BIN) ./cmd/svcplane

up: build
	./$(BIN) up

# Everything CI runs: unit, integration (real embedded etcd), kubectl and
# (as root) e2e tests, then the drift guard against upstream's code.
test:
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 20m ./...
	$(MAKE) test-drift

# Unit tests only (no etcd, no binaries).
test-short:
	$(GO) test -short ./...

# Drift guard: our hand-written field labels, selectable fields and
# ReplicationController defaults/validation against k8s.io/kubernetes v1.36's
# own (a nested module; downloads and compiles k8s.io/kubernetes packages).
test-drift:
	cd test/drift && $(GO) vet ./... && $(GO) test -count=1 ./...

# Kubernetes' own [Conformance] specs of the served areas against
# `svcplane up --nodes 3` (root; builds e2e.test once; CI-optional, slow).
conformance:
	bash hack/conformance.sh

generate:
	$(GO) generate ./...

clean:
	rm -rf bin svcplane-data
