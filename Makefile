# cnpa — make targets. `make test` is what CI runs (.ci/run).
SHELL := /bin/bash
GO ?= go
BIN := .bin
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
K8S_LDFLAGS := -X k8s.io/component-base/version.gitVersion=v1.37.2 \
	-X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=37
KUBEBOX_SRC := $(wildcard test/kubebox/*.go) test/kubebox/go.mod test/kubebox/go.sum
KUBECTL_SRC := $(shell find test/kubebox/kubectl -name '*.go') test/kubebox/go.mod test/kubebox/go.sum
GO_SRC := $(shell find . -name '*.go' -not -path './test/kubebox/*' -not -path './.cache/*') go.mod go.sum $(wildcard assets/*)
# Long enough for a cold, slow machine, where the test binaries compile
# beside the first packages' control planes: test/learners, the longest,
# took 13 min warm on the machine of 2026-12-01 and 33 min on the brand-new
# one of 2026-12-02. A case that hangs is ended by its own deadline first.
TEST_TIMEOUT ?= 70m
# Test packages mostly wait on the cluster (GC, resyncs, the lab's 8 s),
# so more of them run at once than there are cores, but not many more: a
# lab burns CPU for every second it waits, and its waits grow with the
# load. On one machine from fresh clones, 3 packages (learners with 2
# cases at a time) took 18-19 min and 1,782 CPU s, 4 (with 3) 23.5 min
# and 2,473 (docs/development.md, "Before and after, on one machine").
TEST_PARALLEL ?= 3
# go test starts packages in the order it is given them, TEST_PARALLEL at a
# time; ./... alone sorts them by name and starts the longest (learners,
# lab) last, so that they run on alone at the end with cores to spare.
# Longest first (docs/development.md has the times); ./... adds the rest.
TEST_FIRST := ./test/learners ./test/stress ./test/grader ./test/lab ./test/system

.PHONY: all help build dist kubebox rootfs unit test lint lab cluster bench bench-scale soak pictures clean

all: build

## help: this list of targets
help:
	@awk '/^## / { sub(/^## /, ""); if (match($$0, /^[a-z-]+:/)) { name = substr($$0, 1, RLENGTH - 1); text = substr($$0, RLENGTH + 2) } else { text = $$0; name = "" } printf "  %-10s %s\n", name, text }' $(MAKEFILE_LIST)

## build: the cnpa binary into .bin/cnpa
build: $(BIN)/cnpa

$(BIN)/cnpa: $(GO_SRC)
	@mkdir -p $(BIN)
	@$(GO) build -trimpath -ldflags "-X main.version=$(VERSION)" -o $@ ./cmd/cnpa

## dist: the release into dist/ (docs/release.md): for linux/amd64 and
## linux/arm64 a static cnpa in a tarball, its .sha256 and a CycloneDX
## SBOM; a .deb and an .rpm; install.sh; SHA256SUMS of them all
# The version, the commit and the date all come from git: a tag vX.Y.Z
# on HEAD gives X.Y.Z, else 0.0.0~git<commit date>.<commit> (sorts
# before any release, as Debian's ~ does), +dirty with changes not
# committed. The date is the commit's (SOURCE_DATE_EPOCH), never the
# clock's, so that a build of one commit gives the same bytes again:
# an instructor can rebuild and compare checksums (docs/release.md).
# The packager and the SBOM tool are pinned Go modules, fetched through
# the module proxy and run by `go run`, which caches their builds.
NFPM := $(GO) run github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.48.0
CYCLONEDX := $(GO) run github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod@v1.10.0
DIST_ARCHES := amd64 arm64
HOST_ARCH = $(shell $(GO) env GOARCH)
dist: export SOURCE_DATE_EPOCH = $(shell git log -1 --format=%ct)
dist: COMMIT = $(shell git rev-parse --short=12 HEAD)
dist: DIRTY = $(shell git diff --quiet HEAD -- 2>/dev/null || echo +dirty)
dist: TAG = $(shell git describe --tags --exact-match --match 'v[0-9]*' 2>/dev/null)
dist: DIST_VERSION = $(if $(TAG),$(patsubst v%,%,$(TAG)),0.0.0~git$(shell git log -1 --format=%cd --date=format:%Y%m%d).$(shell git rev-parse --short=7 HEAD))$(DIRTY)
dist: BUILD_DATE = $(shell date -u -d @$$(git log -1 --format=%ct) +%Y-%m-%dT%H:%M:%SZ)
# The file names carry the version with ~ and + as _: a URL and a shell
# take them as they are.
dist: FILE_VERSION = $(subst +,_,$(subst ~,_,$(DIST_VERSION)))
dist:
	@rm -rf dist && mkdir -p dist/build/completions dist/build/doc/docs
	@set -e; for arch in $(DIST_ARCHES); do \
		echo "dist: cnpa $(DIST_VERSION) for linux/$$arch"; \
		CGO_ENABLED=0 GOOS=linux GOARCH=$$arch $(GO) build -trimpath \
			-ldflags "-s -w -X main.version=$(DIST_VERSION) -X main.commit=$(COMMIT)$(DIRTY) -X main.buildDate=$(BUILD_DATE)" \
			-o dist/build/linux_$$arch/cnpa ./cmd/cnpa; \
	done
	@host=dist/build/linux_$(HOST_ARCH)/cnpa; \
		$$host completion bash >dist/build/completions/cnpa.bash && \
		$$host completion zsh >dist/build/completions/_cnpa && \
		$$host completion fish >dist/build/completions/cnpa.fish && \
		$(GO) run ./test/dist/manpage -cnpa $$host -version $(DIST_VERSION) -date $(shell date -u -d @$$(git log -1 --format=%ct) +%Y-%m-%d) -out dist/build/man
	@cp README.md README.ja.md dist/build/doc/ && cp docs/*.md docs/*.png dist/build/doc/docs/
	@cp packaging/install.sh dist/install.sh
	@# nfpm keeps a tree's files' own times: the commit's, not the copy's.
	@find dist/build -exec touch -h -d @$$SOURCE_DATE_EPOCH {} +
	@set -e; for arch in $(DIST_ARCHES); do \
		name=cnpa_$(FILE_VERSION)_linux_$$arch; \
		mkdir -p dist/build/tar/$$name; \
		cp -r dist/build/linux_$$arch/cnpa dist/build/completions dist/build/man README.md README.ja.md dist/build/tar/$$name/; \
		tar --sort=name --mtime=@$$SOURCE_DATE_EPOCH --owner=0 --group=0 --numeric-owner -C dist/build/tar -cf - $$name | gzip -n9 >dist/$$name.tar.gz; \
		$(CYCLONEDX) bin -json -std -noserial -notimestamp -output dist/$$name.sbom.cdx.json -version $(DIST_VERSION) dist/build/linux_$$arch/cnpa; \
		for p in deb rpm; do \
			CNPA_ARCH=$$arch CNPA_VERSION=$(DIST_VERSION) $(NFPM) package -f packaging/nfpm.yaml -p $$p -t dist/ >/dev/null; \
		done; \
	done
	@cd dist && for f in *.tar.gz *.deb *.rpm; do sha256sum $$f >$$f.sha256; done && sha256sum *.tar.gz *.deb *.rpm *.sbom.cdx.json install.sh >SHA256SUMS
	@ls -l dist | sed 1d | grep -v ' build$$'

## kubebox: the real control plane for tests (etcd, kine over SQLite as in
## k3s, kube-apiserver, kube-controller-manager, kubectl v1.37.2) into
## .bin/kubebox, and its kubectl alone into .bin/kubebox-kubectl (the
## tests' kubectl: it starts without the rest's init); rebuilt only when
## test/kubebox changes (cgo, for SQLite).
kubebox: $(BIN)/kubebox $(BIN)/kubebox-kubectl

$(BIN)/kubebox: $(KUBEBOX_SRC)
	@mkdir -p $(BIN)
	cd test/kubebox && $(GO) build -trimpath -ldflags "-s -w $(K8S_LDFLAGS)" -o ../../$(BIN)/kubebox .

# After kubebox (order only): its packages are all kubebox's, so with
# kubebox built it is a link; at the same time, under make -j, both
# builds would compile the same packages side by side.
$(BIN)/kubebox-kubectl: $(KUBECTL_SRC) | $(BIN)/kubebox
	@mkdir -p $(BIN)
	cd test/kubebox && $(GO) build -trimpath -ldflags "-s -w $(K8S_LDFLAGS)" -o ../../$(BIN)/kubebox-kubectl ./kubectl

## rootfs: the systemd tests' Debian root filesystem, built once with
## debootstrap into .cache/nspawn (or CNPA_NSPAWN_CACHE); as root with
## systemd-nspawn and debootstrap only, else it says why and does nothing
rootfs:
	@$(GO) run ./test/nspawn/prepare

## unit: every test that needs no cluster (no control plane, container or
## systemd): the inner loop; go test's cache skips packages that did not
## change (GOFLAGS=-count=1 runs them all)
# The packages under test/ that start a control plane (test/kit/cluster) or
# a container; every other package of the module is a unit package.
# test/README.md says which is which: a new suite that starts a cluster
# goes in this list too.
CLUSTER_PKGS := cli crd dist e2e faults grader lab labfile learners stress system nspawn kit/cluster
UNIT_PKGS = $(shell $(GO) list ./... | grep -v -x -E '$(subst $(eval) ,|,$(addprefix github.com/labhub/cnpa/test/,$(CLUSTER_PKGS)))')
# -short: test/bench's smoke test starts eight control planes.
unit: build
	CNPA_BIN=$(abspath $(BIN)/cnpa) GOFLAGS="$$($(GO) env GOFLAGS) -trimpath -ldflags=-w" $(GO) test -short -p $(TEST_PARALLEL) $(UNIT_PKGS)

## test: unit tests and every integration test against the real control plane
# -trimpath as in build (and kubebox): the tests, and the cnpa binaries they
# build, share build's compiled packages instead of compiling all of
# client-go again (about 330 CPU s from an empty build cache). GOFLAGS
# reaches the go builds the tests run too.
# rootfs first: debootstrap beside the tests' control planes took 13 min.
# dist first: test/dist installs its .deb and tarball ($CNPA_DIST) into a
# fresh Debian root with systemd.
# CNPA_BIN: the packages that run cnpa copy build's .bin/cnpa instead of
# each linking their own (test/kit's PlaceCnpa). -ldflags=-w: the ~40 test
# binaries link without DWARF, which only a debugger reads (panics and
# stack traces use the symbol table): 1-1.3 CPU s less a link.
test: kubebox build rootfs dist
	CNPA_BIN=$(abspath $(BIN)/cnpa) CNPA_DIST=$(abspath dist) GOFLAGS="$$($(GO) env GOFLAGS) -trimpath -ldflags=-w" $(GO) test -count=1 -p $(TEST_PARALLEL) -timeout $(TEST_TIMEOUT) $(TEST_FIRST) ./...

## lint: gofmt must change nothing; go vet must pass
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	cd test/kubebox && $(GO) vet ./...

## lab: the whole lab end to end on the embedded real control plane
## (ENGINE=go|shell, DATASTORE=etcd|kine, VERBOSE=1 for every file and
## manifest in full), then `cnpa check`
ENGINE ?= go
DATASTORE ?= etcd
VERBOSE ?=
lab: kubebox build
	@$(GO) run ./test/labrun -engine $(ENGINE) -datastore $(DATASTORE) -cnpa $(BIN)/cnpa $(if $(VERBOSE),-verbose)

## cluster: the embedded real control plane in the foreground, to try the
## lab by hand: prints the lines to paste into another shell (KUBECONFIG,
## CNPA_DIR, ...); Ctrl-C stops it and removes everything it made
## (DATASTORE=etcd|kine; CNPA_KUBEBOX=path uses that kubebox instead)
cluster: $(if $(CNPA_KUBEBOX),,kubebox) build
	@$(GO) build -o $(BIN)/cluster ./test/cluster
	@CNPA_KUBEBOX=$(or $(CNPA_KUBEBOX),$(abspath $(BIN)/kubebox)) exec $(BIN)/cluster -datastore $(DATASTORE) -cnpa $(BIN)/cnpa

## bench: side-by-side performance against the controller-runtime peer
bench: kubebox build
	$(GO) run ./test/bench -cnpa $(BIN)/cnpa

## bench-scale: convergence, drift, idle requests and RSS at 0, 1,000,
## 10,000 and 20,000 background TeamSpaces, cnpa beside the peer, each on
## one control plane that grows (test/bench/README.md); the JSON goes to
## test/bench/results/scale-<date>.json, which is committed
SCALE_SIZES ?= 0,1000,10000,20000
bench-scale: kubebox build
	$(GO) run ./test/bench -cnpa $(BIN)/cnpa -phases scale -scale-sizes $(SCALE_SIZES) -contenders cnpa,peer \
		-samples 20 -drift-samples 20 -idle 20s -settle-max 8m

## soak: 1,000 TeamSpaces under random changes, restarts included
soak: kubebox build
	$(GO) test -count=1 -tags soak -timeout 60m -run Soak -v ./test/faults/

## pictures: the README's pictures from a real lab run (docs/step5-terminal.png,
## `cnpa step 5` in tmux; docs/report.png, `cnpa report --html`); needs tmux
## and chromium
pictures: kubebox build
	$(GO) run ./test/pictures -cnpa $(BIN)/cnpa -out docs

## clean: remove .bin and dist (the binaries and artifacts above)
clean:
	rm -rf $(BIN) dist
