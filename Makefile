# Developer and CI entry points. `make help` lists them.

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo none)
DATE    ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
LDFLAGS := -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT) -X main.date=$(DATE)

# PostgreSQL used by the tests of the PostgreSQL store and the end-to-end tests.
PORTAL_TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable
export PORTAL_TEST_DATABASE_URL

DATA_DIR ?= ./data

# The binaries that exist now: every cmd/<name> with a main.go.
BINARIES := $(sort $(notdir $(patsubst %/main.go,%,$(wildcard cmd/*/main.go))))

# Cross-build targets per binary, as os/arch.
DIST_portal   := linux/amd64 linux/arm64
DIST_labagent := linux/amd64 linux/arm64 windows/amd64
DIST_linkctl  := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64

.PHONY: help
help: ## list the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-8s %s\n", $$1, $$2}'

.PHONY: run
run: ## run the portal on :8080 with its data in ./data
	@echo "portal: data in $(DATA_DIR); on first start the admin password is written to $(DATA_DIR)/initial-admin-password"
	$(GO) run -ldflags "$(LDFLAGS)" ./cmd/portal serve --data-dir $(DATA_DIR)

.PHONY: build
build: ## build every binary of cmd/ into ./bin, version stamped
	@mkdir -p bin
	@for b in $(BINARIES); do \
		echo "go build -o bin/$$b ./cmd/$$b"; \
		CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o bin/$$b ./cmd/$$b; \
	done

.PHONY: lint
# staticcheck, pinned, fetched through the Go module proxy on first use and
# built for this machine into bin/tools (it then checks other GOOS too).
STATICCHECK_VERSION := v0.8.2
STATICCHECK := bin/tools/staticcheck-$(STATICCHECK_VERSION)

$(STATICCHECK):
	GOBIN=$(CURDIR)/bin/tools GOOS= GOARCH= $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	mv bin/tools/staticcheck $@

lint: $(STATICCHECK) ## go vet and staticcheck (also of labagent for Windows), a gofmt check, no tracked executables
	$(GO) vet ./...
	$(GO) vet -tags wine ./cmd/labagent/
	GOOS=windows $(GO) vet ./cmd/labagent/ ./internal/agent/...
	@unformatted=$$(gofmt -l $$(git ls-files -co --exclude-standard '*.go' 2>/dev/null || find . -name '*.go' -not -path './.git/*')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	@bins=$$(git ls-files -z 2>/dev/null | perl -0ne 'chomp; open(my $$f, "<", $$_) or next; read($$f, my $$b, 4); print "$$_\n" if $$b =~ /^(\x7fELF|MZ|\xcf\xfa\xed\xfe|\xfe\xed\xfa\xcf)/'); \
	if [ -n "$$bins" ]; then echo "build outputs are tracked (build into bin/ or dist/, then git rm --cached):"; echo "$$bins"; exit 1; fi
	$(STATICCHECK) -tags loadtest,wine ./...
	GOOS=windows $(STATICCHECK) ./cmd/labagent/ ./internal/agent/...

.PHONY: tools
# versitygw, Versity's S3 gateway (Apache 2.0), pinned: the S3 server that the
# object storage tests start (internal/testkit/s3server, whose Version is this
# one). The tests install it themselves into the user's cache directory when
# it is in neither place, so this target only saves that first run's build.
VERSITYGW_VERSION := v1.8.0
VERSITYGW := bin/tools/versitygw-$(VERSITYGW_VERSION)

$(VERSITYGW):
	GOBIN=$(CURDIR)/bin/tools GOOS= GOARCH= CGO_ENABLED=0 $(GO) install github.com/versity/versitygw/cmd/versitygw@$(VERSITYGW_VERSION)
	mv bin/tools/versitygw $@

tools: $(STATICCHECK) $(VERSITYGW) ## the pinned tools into bin/tools: staticcheck, and versitygw (the tests' S3 server)

.PHONY: pgcheck
pgcheck: ## probe the test PostgreSQL; loud when unreachable, fatal when CI=true
	@url='$(PORTAL_TEST_DATABASE_URL)'; ok=0; \
	if command -v pg_isready >/dev/null; then \
		pg_isready -q -t 3 -d "$$url" && ok=1 || true; \
	else \
		hostport=$$(echo "$$url" | sed -E 's#^[a-z]+://([^@/]*@)?([^/?]*).*#\2#'); \
		host=$${hostport%:*}; port=$${hostport##*:}; [ "$$port" = "$$hostport" ] && port=5432; \
		timeout 3 bash -c "exec 3<>/dev/tcp/$${host:-127.0.0.1}/$$port" 2>/dev/null && ok=1 || true; \
	fi; \
	if [ $$ok = 1 ]; then echo "PostgreSQL reachable: the PostgreSQL tests run."; exit 0; fi; \
	echo "################################################################################"; \
	echo "##"; \
	echo "##  PostgreSQL IS NOT REACHABLE at PORTAL_TEST_DATABASE_URL"; \
	echo "##  ($$(echo "$$url" | sed -E 's#://([^:@/]*):[^@/]*@#://\1:***@#'))"; \
	echo "##  Every PostgreSQL test will be SKIPPED: the PostgreSQL store is NOT tested."; \
	echo "##  Start it (pg_ctlcluster --skip-systemctl-redirect \$$(ls /etc/postgresql) main start)"; \
	echo "##  or set PORTAL_TEST_DATABASE_URL."; \
	echo "##"; \
	echo "################################################################################"; \
	if [ "$${CI:-}" = true ]; then echo "CI=true: failing."; exit 1; fi

.PHONY: test
# make test runs the race tests (go test -race ./...) and, beside them, three
# lanes of make targets, all four at once; each lane runs its targets one
# after another (each even when one before it failed) into
# bin/logs/lane-<lane>.log:
# - wine: labagent's Windows build under Wine (make test-windows);
# - qemu: the linux/arm64 builds under qemu (make test-arm64);
# - cpu: first make compile at the race tests' priority, then at nice 10
#   lint, the race-free tests, every fuzz target for 2,000 inputs (make lint
#   test-norace fuzz-brief), in that order, as each reuses the builds of
#   the one before (vet's, staticcheck's).
# The race tests wait on processes, PostgreSQL, disks and a browser for a
# good part of their time, and so do the Wine and qemu lanes, which run at
# the race tests' priority so that their timeouts hold; the cpu lane fills
# the CPU they leave. The lanes' logs follow the race tests' output, then
# each part's result (ok or FAILED), wall time and CPU time; a failed part
# fails make test. A package may take longer than go test's default 10
# minutes on a loaded 2-core machine: the limit is 30 (a hang, not a speed
# target).
LANES     := wine qemu cpu
LANE_wine := test-windows
LANE_qemu := test-arm64
LANE_cpu  := compile@0 lint test-norace fuzz-brief
NICE_wine := 0
NICE_qemu := 0
NICE_cpu  := 10
# A lane's targets without their priorities (target@niceness).
lanetargets = $(foreach t,$(LANE_$(1)),$(firstword $(subst @, ,$(t))))
# The end-to-end tests' binaries (internal/testkit/proc), built once per
# configuration for every test package and every lane, and kept for the
# next run: go build relinks only what changed.
export PORTAL_TEST_BIN_DIR ?= $(CURDIR)/bin/testbin
# make test links some hundred test binaries (every package's with -race,
# the fuzz binaries, the Windows and arm64 ones): without DWARF, which only
# a debugger reads (stack traces and race reports come from the binary's
# own line tables), each links faster. A go build with -ldflags of its own
# (the end-to-end binaries) is not affected. With -trimpath the build cache
# keys leave out the checkout's directory: a fresh clone elsewhere (a CI
# run) finds this module's packages compiled by the run before, instead of
# compiling them all again for each configuration (stack traces then name
# files by import path).
test compile test-norace test-windows test-arm64 fuzz-build fuzz fuzz-brief: export GOFLAGS := $(strip $(filter-out -ldflags=-w -trimpath,$(shell $(GO) env GOFLAGS)) -trimpath -ldflags=-w)
test: pgcheck ## every test with -race (PostgreSQL too when reachable), with lint, the race-free tests, fuzz-brief, test-windows and test-arm64 beside it
	@mkdir -p bin/logs; rm -f bin/logs/lane-* bin/logs/race.time; TIMEFORMAT='%R %U %S'; start=$$SECONDS; \
	lane() { \
		local name=$$1 lanenice=$$2 target niceness rc; shift 2; \
		for target in "$$@"; do \
			niceness=$$lanenice; [[ $$target != *@* ]] || { niceness=$${target#*@}; target=$${target%@*}; }; \
			rc=0; { time nice -n $$niceness $(MAKE) --no-print-directory $$target >> bin/logs/lane-$$name.log 2>&1 || rc=$$?; } 2> bin/logs/lane-$$name.time; \
			echo "$$target $$rc $$(cat bin/logs/lane-$$name.time)" >> bin/logs/lane-$$name.result; \
		done; \
	}; \
	$(foreach l,$(LANES),lane $(l) $(NICE_$(l)) $(LANE_$(l)) & ) \
	echo "$(GO) test -race -count=1 -timeout 30m ./...   (beside it:$(foreach l,$(LANES), make $(call lanetargets,$(l)) [bin/logs/lane-$(l).log];))"; \
	status=0; { time $(GO) test -race -count=1 -timeout 30m ./... 2>&3 || status=$$?; } 3>&2 2> bin/logs/race.time; \
	wait; \
	$(foreach l,$(LANES),echo "== make $(call lanetargets,$(l)), run beside the tests:"; cat bin/logs/lane-$(l).log;) \
	echo "== make test: $$(( (SECONDS - start) / 60 )) min $$(( (SECONDS - start) % 60 )) s; each part's wall time and CPU time:"; \
	parts=0; while read -r what rc wall user sys; do \
		parts=$$(( parts + 1 )); : $${wall:=0} $${user:=0} $${sys:=0}; wall=$${wall%.*}; cpu=$$(( $${user%.*} + $${sys%.*} )); \
		[ "$$what" = race ] && what="go test -race ./..." || what="make $$what"; \
		printf '  %-22s %-6s %2d min %2d s   CPU %2d min %2d s\n' "$$what" $$([ "$$rc" = 0 ] && echo ok || echo FAILED) \
			$$(( wall / 60 )) $$(( wall % 60 )) $$(( cpu / 60 )) $$(( cpu % 60 )); \
		[ "$$rc" = 0 ] || { echo "  $$what FAILED: see its output above"; status=1; }; \
	done < <(echo "race $$status $$(cat bin/logs/race.time)"; cat $(LANES:%=bin/logs/lane-%.result)); \
	[ $$parts = $(words race $(foreach l,$(LANES),$(LANE_$(l)))) ] || { echo "make test: a lane did not finish"; status=1; }; \
	exit $$status

.PHONY: compile
# Run first in make test's cpu lane, at the race tests' priority: by the time
# the other lanes and the end-to-end tests build for this machine without
# -race, they find every package in the build cache, instead of several of
# them compiling the same packages at once.
compile: ## compile every package for this machine into the build cache (go list -export), where go vet, staticcheck and the end-to-end tests' builds find them (part of make test)
	$(GO) list -export ./... > /dev/null

.PHONY: test-norace
test-norace: ## the tests that the race detector would distort (memory and allocation figures), without -race (part of make test)
	$(GO) test -count=1 -run '^(TestPackageReadersMemory|TestRecordDoesNotAllocate|TestAnswersCSVMemory)$$' -v ./internal/store/postgres ./internal/links/visits ./internal/httpapi/exam

.PHONY: test-windows
# labagent's Windows build under Wine 8 (Debian's wine64, with a shim built
# by mingw-w64: internal/testkit/wine). First the unit tests of the Windows
# code, cross-compiled and run in a fresh prefix through go test -exec:
# only these (WINDOWS_UNIT_TESTS), since Go 1.26's os.RemoveAll fails under
# Wine 8 and so does the cleanup of every test using t.TempDir; the test
# files of those packages that need the portal, PostgreSQL or a browser are
# built for Linux only (//go:build !windows), so that this build compiles
# labagent's dependencies and not the portal's. Then the
# end-to-end flows of cmd/labagent (TestWindows*, build tag wine), which
# make a prefix of their own. Logs in bin/logs/test-windows-*.log.
WINDOWS_UNIT_TESTS := ^(TestRawMachineIDWindows|TestMachineHardwareIDWindows|TestDataDirPathsWindows|TestFreeBytesWindows|TestFreeSpaceWindows|TestIsDiskFullWindows|TestOpenLockedWindows|TestUnderWineWindows|TestServeService.*|TestRecoveryStepError|TestStartedByServiceManager)$$
WINDOWS_UNIT_PKGS  := ./internal/agent/ ./internal/agent/localdb/ ./cmd/labagent/
test-windows: ## labagent's Windows build under Wine: its Windows unit tests, then the end-to-end flows (TestWindows*); skipped loudly without wine64 and mingw-w64, fatal when CI=true (part of make test)
	@missing=; \
	{ command -v wine64 >/dev/null || [ -x /usr/lib/wine/wine64 ]; } || missing="$$missing wine64"; \
	command -v x86_64-w64-mingw32-gcc >/dev/null || missing="$$missing gcc-mingw-w64-x86-64"; \
	if [ -n "$$missing" ]; then \
		echo "################################################################################"; \
		echo "##"; \
		echo "##  WINE OR MINGW-W64 IS MISSING (Debian packages:$$missing)"; \
		echo "##  Every Windows test is SKIPPED: labagent's Windows build is NOT tested."; \
		echo "##  Install them: apt-get install wine64 gcc-mingw-w64-x86-64"; \
		echo "##"; \
		echo "################################################################################"; \
		if [ "$${CI:-}" = true ]; then echo "CI=true: failing."; exit 1; fi; \
		exit 0; \
	fi; \
	start=$$SECONDS; mkdir -p bin/tools bin/logs; \
	$(GO) build -o bin/tools/wineexec ./internal/testkit/wine/wineexec; \
	prefix=$(CURDIR)/bin/wine-prefix-$$$$; rm -rf "$$prefix"; \
	trap 'bin/tools/wineexec -close "$$prefix" >/dev/null 2>&1; rm -rf "$$prefix"' EXIT; \
	echo "wineexec -init $$prefix"; bin/tools/wineexec -init "$$prefix"; \
	unit=bin/logs/test-windows-unit.log; flows=bin/logs/test-windows-flows.log; status=0; \
	echo "GOOS=windows $(GO) test -exec bin/tools/wineexec -run '$(WINDOWS_UNIT_TESTS)' $(WINDOWS_UNIT_PKGS)"; \
	WINEPREFIX=$$prefix GOOS=windows GOARCH=amd64 $(GO) test -exec $(CURDIR)/bin/tools/wineexec -count=1 -v \
		-run '$(WINDOWS_UNIT_TESTS)' $(WINDOWS_UNIT_PKGS) 2>&1 | tee $$unit || status=1; \
	bin/tools/wineexec -close "$$prefix"; \
	echo "$(GO) test -tags wine -run '^TestWindows' ./cmd/labagent/"; \
	$(GO) test -tags wine -run '^TestWindows' -count=1 -v -timeout 30m ./cmd/labagent/ 2>&1 | tee $$flows || status=1; \
	count() { grep -cE "^ *--- $$1: $$2" "$$3" || true; }; \
	echo "== make test-windows: $$(( SECONDS - start )) s"; \
	echo "unit tests under Wine:   $$(count PASS Test $$unit) passed, $$(count FAIL Test $$unit) failed, $$(count SKIP Test $$unit) skipped"; \
	echo "labagent.exe flows:      $$(count PASS TestWindows $$flows) passed, $$(count FAIL TestWindows $$flows) failed, $$(count SKIP TestWindows $$flows) skipped"; \
	grep -hE "^ *--- (PASS|FAIL|SKIP): TestWindows" $$flows | sed 's/^ */  /' || true; \
	grep -ho "proved (.*" $$flows | sed 's/^/  /' || true; \
	if [ $$status != 0 ] || ! grep -q "^ok " $$unit || ! grep -q "^ok " $$flows; then echo "make test-windows FAILED"; exit 1; fi

.PHONY: test-arm64
# labagent and the portal ship for linux/arm64 (the labs' mini PCs); here
# their arm64 builds run through Debian's qemu-user-static, named on the
# command line (binfmt_misc is not needed):
# - labagent's package tests compiled for arm64, run with go test -exec:
#   ./internal/agent/... and cmd/labagent's unit tests. -short skips
#   cmd/labagent's end-to-end tests: they go build the binaries from inside
#   the test (for arm64, as GOARCH is inherited) and exec them directly,
#   which an emulated test cannot do without binfmt_misc; their arm64 flow
#   is the next step. -skip '^TestBrowser' leaves out the Chromium tests:
#   they drive the student page's script in a browser of this machine, the
#   same on every platform, and make test runs them.
# - the end-to-end run TestArm64* (cmd/labagent, build tag qemu): the arm64
#   portal and labagent under qemu, on this machine.
# Without qemu-aarch64-static it says so loudly and skips; CI=true fails.
test-arm64: ## labagent's tests and an end-to-end run (portal, labagent) for linux/arm64 under qemu-user-static
	@if ! command -v qemu-aarch64-static >/dev/null; then \
		echo "################################################################################"; \
		echo "##"; \
		echo "##  qemu-aarch64-static IS NOT INSTALLED: the linux/arm64 builds are NOT tested."; \
		echo "##  Install Debian's qemu-user-static (apt-get install qemu-user-static)."; \
		echo "##"; \
		echo "################################################################################"; \
		if [ "$${CI:-}" = true ]; then echo "CI=true: failing."; exit 1; fi; exit 0; \
	fi; \
	mkdir -p bin/logs; t0=$$(date +%s); unit=PASS; e2e=PASS; \
	echo "GOARCH=arm64 $(GO) test -exec qemu-aarch64-static -short -skip '^TestBrowser' ./internal/agent/... ./cmd/labagent/"; \
	GOARCH=arm64 CGO_ENABLED=0 $(GO) test -count=1 -timeout 15m -exec qemu-aarch64-static -short -skip '^TestBrowser' \
		./internal/agent/... ./cmd/labagent/ 2>&1 | tee bin/logs/arm64-unit.log || unit=FAIL; \
	echo "$(GO) test -tags qemu -run '^TestArm64' ./cmd/labagent/"; \
	$(GO) test -count=1 -timeout 20m -tags qemu -run '^TestArm64' -v ./cmd/labagent/ > bin/logs/arm64-e2e.log 2>&1 || e2e=FAIL; \
	grep -E '^(--- |ok|FAIL|panic)|proved on' bin/logs/arm64-e2e.log || true; \
	[ $$e2e = PASS ] || tail -n 80 bin/logs/arm64-e2e.log; \
	echo "== make test-arm64, $$(( $$(date +%s) - t0 ))s:"; \
	echo "  labagent's package tests on arm64 (qemu):  $$unit ($$(grep -c '^ok' bin/logs/arm64-unit.log || true) packages ok; bin/logs/arm64-unit.log)"; \
	echo "  end-to-end, portal and labagent on arm64: $$e2e (bin/logs/arm64-e2e.log)"; \
	[ $$unit = PASS ] && [ $$e2e = PASS ]

.PHONY: fuzz fuzz-build fuzz-brief
FUZZTIME ?= 1m
# Where each target's generated corpus is kept between runs: Go's own place,
# so that a long make fuzz starts from what the runs before it found.
FUZZCACHE ?= $(shell $(GO) env GOCACHE)/fuzz
# Every fuzz target (func FuzzXxx(f *testing.F) in a _test.go file), found
# without compiling: one line per package, its directory then its targets.
FUZZ_TARGETS = grep -ro --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*(' cmd internal pkg | \
	awk -F: '{d = $$1; sub(/\/[^\/]*$$/, "", d); n = $$2; sub(/^func /, "", n); sub(/\($$/, "", n); t[d] = t[d] " " n} END {for (d in t) print "./" d t[d]}' | sort
# The fuzz binaries are the packages' test binaries with this module's own
# code instrumented for coverage guidance, as go test -fuzz instruments it.
# Everything else (the standard library, the modules it depends on) is
# compiled as for go vet and comes from the build cache (go test -fuzz would
# compile every dependency a third time, instrumented, package by package).
# Each package's go test -c names its binary by the package's path (two
# packages share the base name ordering), two at a time.
FUZZ_GCFLAGS = -gcflags='$(shell $(GO) list -m)/...=-d=libfuzzer'
fuzz-build: ## build the fuzz binaries into bin/fuzz (part of make fuzz)
	@mkdir -p bin/fuzz; $(FUZZ_TARGETS) | cut -d' ' -f1 | while read -r dir; do \
		echo "$(GO) test -c -o bin/fuzz/$$(echo $${dir#./} | tr / _).test $(FUZZ_GCFLAGS) $$dir"; \
	done | xargs -d '\n' -P 2 -I{} bash -c {}
fuzz: fuzz-build ## run every fuzz target for FUZZTIME each (default 1m); a crasher is kept in the package's testdata/fuzz/ (docs/ARCHITECTURE.md, "Fuzzing")
	@mod=$$($(GO) list -m); cache=$(FUZZCACHE); \
	$(FUZZ_TARGETS) | while read -r dir names; do \
		bin=$(CURDIR)/bin/fuzz/$$(echo $${dir#./} | tr / _).test; \
		for name in $$names; do \
			echo "fuzz $$dir $$name for $(FUZZTIME)"; \
			(cd $$dir && $$bin -test.run '^$$' -test.fuzz "^$$name\$$" -test.fuzztime $(FUZZTIME) -test.fuzzminimizetime 5s \
				-test.fuzzcachedir $$cache/$$mod/$${dir#./}) </dev/null 2>&1 | grep -v '^fuzz: elapsed' || exit 1; \
		done; \
	done

# Brief runs count executions, not seconds: a duration makes the Go 1.26
# fuzzing engine fail now and then with "context deadline exceeded" as the
# time runs out (golang/go#75804, fixed in Go 1.27), a flake unrelated to
# the code under test; a count has no deadline. They start from the seed
# corpora alone, in a corpus cache of their own, emptied after: each target
# first replays its whole cached corpus, which grows with every run, so the
# shared cache made make test slower run after run.
fuzz-brief: ## every fuzz target for 2,000 inputs from its seed corpus (part of make test; about two minutes of CPU)
	@cache=$$(mktemp -d); trap 'rm -rf "$$cache"' EXIT; \
	$(MAKE) --no-print-directory fuzz FUZZTIME=2000x FUZZCACHE=$$cache

.PHONY: bench
bench: pgcheck ## micro benchmarks, then the load runs on PostgreSQL and bbolt (docs/benchmarks.md)
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 1s ./...
	$(GO) test -tags loadtest -run '^(TestLoad|TestLabagentLoad|TestMediaLoad|TestRedirectLoad|TestLinkListLoad|TestVisitStatsLoad|TestOrderingLoad|TestConsoleLoad)$$' -count=1 -v -timeout 60m ./internal/loadtest

.PHONY: loadtest
LOADTEST_DURATION ?= 60s
loadtest: pgcheck ## an exam day and a campaign burst through real portals on PostgreSQL, 1 and 3 instances, LOADTEST_DURATION each (default 60s), then the exam morning (loadtest-morning; docs/benchmarks.md)
	LOADTEST_DURATION=$(LOADTEST_DURATION) $(GO) test -tags loadtest -run '^(TestExamDay|TestCampaignBurst)$$' -count=1 -v -timeout 60m ./internal/loadtest
	$(MAKE) loadtest-morning

.PHONY: loadtest-morning
# The exam morning (docs/benchmarks.md, "Exam morning: 10,000 schools
# through a cache"): three portals on PostgreSQL with versitygw as their
# blob store and Debian's nginx as the cache in front of it, installed here
# when missing (as .ci/run installs its tools). Sizes from the environment:
# MORNING_SCHOOLS (10000), MORNING_FORMAT2_SCHOOLS (200), MORNING_MEDIA_MIB
# (60), MORNING_STUDENTS (100), MORNING_CONCURRENCY (250),
# MORNING_MEDIA_DECRYPT (one, or all), MORNING_ORIGIN (bucket, or portals:
# the cache in front of the portals' blob route). At full size it streams
# some 600 GB through the cache, about half an hour here; make loadtest
# runs it after the exam day.
loadtest-morning: pgcheck ## the exam morning: 10,000 lab servers fetch a 60 MiB exam, envelopes from 3 portals and blobs through nginx in front of versitygw, beside 200 of format 2 (docs/benchmarks.md)
	@if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then \
		echo "nginx not installed; installing Debian's nginx-light"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light; \
	fi
	$(GO) test -tags loadtest -run '^TestExamMorning$$' -count=1 -v -timeout 150m ./internal/loadtest

.PHONY: soak soak-labagent soak-portal
SOAK_ROUNDS ?= 300
SOAK_DURATION ?= 30m
soak: soak-labagent soak-portal ## both soaks below (not in CI)
soak-labagent: ## kill -9 labagent SOAK_ROUNDS times (default 300, about 2 minutes) while students save and it pushes
	LABAGENT_KILL_ROUNDS=$(SOAK_ROUNDS) $(GO) test -count=1 -run '^TestKillNine$$' -v -timeout 2h ./cmd/labagent/
soak-portal: ## the portal under a mixed load of the three APIs for SOAK_DURATION (default 30m): RSS, goroutines, open files must not grow
	PORTAL_SOAK=$(SOAK_DURATION) $(GO) test -count=1 -run '^TestPortalSoak$$' -v -timeout 24h ./cmd/portal/

.PHONY: dist
dist: ## release archives of every binary per os/arch (binary, README, its docs and service file, VERSION), labagent's MSI and SHA256SUMS into ./dist
	@rm -rf dist && mkdir -p dist
	@for b in $(BINARIES); do \
		case $$b in portal) targets="$(DIST_portal)";; labagent) targets="$(DIST_labagent)";; linkctl) targets="$(DIST_linkctl)";; *) targets="linux/amd64";; esac; \
		for t in $$targets; do \
			os=$${t%/*}; arch=$${t#*/}; ext=; [ $$os = windows ] && ext=.exe; \
			name=$$b-$(VERSION)-$$os-$$arch; dir=dist/$$name; mkdir -p $$dir; \
			CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $$dir/$$b$$ext ./cmd/$$b; \
			[ $$os != windows ] || deploy/windows/sign $$dir/$$b$$ext; \
			cp README.md $$dir/; \
			case $$b in \
				portal) cp docs/operations.md docs/configuration.md deploy/systemd/portal.service $$dir/;; \
				labagent) cp docs/labagent.md $$dir/; [ $$os = linux ] && cp deploy/systemd/labagent.service $$dir/ || true;; \
				linkctl) cp docs/linkctl.md $$dir/;; \
			esac; \
			printf 'name: %s\nversion: %s\ncommit: %s\ndate: %s\nos: %s\narch: %s\ngo: %s\n' \
				$$b $(VERSION) $(COMMIT) $(DATE) $$os $$arch "$$($(GO) env GOVERSION)" > $$dir/VERSION; \
			if [ $$os = windows ]; then (cd dist && python3 -m zipfile -c $$name.zip $$name/ >/dev/null); echo "dist/$$name.zip"; \
			else tar -C dist -czf dist/$$name.tar.gz $$name; echo "dist/$$name.tar.gz"; fi; \
			rm -rf $$dir; \
		done; \
	done
	@$(MAKE) --no-print-directory msi
	@cd dist && sha256sum * > SHA256SUMS && echo "dist/SHA256SUMS (check with: cd dist && sha256sum -c SHA256SUMS)"

.PHONY: msi
# labagent's Windows installer (docs/labagent.md, "Windows: the MSI"): labagent.exe built
# into MSI_BUILD, signed, packed by wixl into MSI_OUT, the MSI signed. Signed
# when SIGN_CERT and SIGN_KEY are set (deploy/windows/sign says how).
MSI_OUT   ?= dist
MSI_BUILD ?= bin/msi
MSI       := $(MSI_OUT)/labagent-$(VERSION)-x64.msi
msi: ## labagent's Windows installer, dist/labagent-VERSION-x64.msi (wixl), signed when SIGN_CERT and SIGN_KEY are set
	@command -v wixl >/dev/null || { echo "wixl not found: install Debian's wixl (and msitools)"; exit 1; }
	@mkdir -p $(MSI_BUILD) $(MSI_OUT)
	CGO_ENABLED=0 GOOS=windows GOARCH=amd64 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(MSI_BUILD)/labagent.exe ./cmd/labagent
	@deploy/windows/sign $(MSI_BUILD)/labagent.exe
	@# wixl finds a File's Source relative to the working directory only.
	cd $(MSI_BUILD) && wixl -a x64 -D Version=$$($(CURDIR)/deploy/windows/msi-version $(VERSION)) -D LabagentExe=labagent.exe \
		-o $(abspath $(MSI)) $(CURDIR)/deploy/windows/labagent.wxs
	@deploy/windows/sign $(MSI)
	@echo "$(MSI) (MSI version $$(deploy/windows/msi-version $(VERSION)))"

.PHONY: clean
clean: ## remove build outputs (not ./data)
	rm -rf bin dist coverage.out coverage.html
	$(GO) clean -testcache
