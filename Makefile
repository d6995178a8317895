# eqc — see README.md. `make tsvc` runs the main job, `make test` the tests.
SHELL := /bin/bash
GO ?= go
BIN := bin/eqc
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo dev)

# Debian packages eqc needs: compilers for the benchmark matrix (gcc-12 is the
# machine's gcc), the SMT solvers it races, libz3 for the in-process backend,
# csmith for the corpus, binutils for the objdump oracle in the tests,
# llvm-16-dev for clang's keepsig plugin (bench/clangplugin), make, tcl and
# xz-utils for preparing the SPEC-like programs (bench/spec), graphviz to
# render eqc proof show --format dot, slurm-wlm and munge for the local
# single-node Slurm of eqc slurm's test (scripts/slurm-local.sh), and
# Jupyter with pandas and matplotlib for the notebooks.
APT_PACKAGES := gcc clang-16 libz3-dev z3 cvc5 boolector csmith libcsmith-dev binutils libc6-dev \
	llvm-16-dev make tcl xz-utils graphviz slurm-wlm munge \
	jupyter-nbconvert python3-nbclient python3-ipykernel python3-pandas python3-matplotlib

.PHONY: all deps build vet test bench fuzz tsvc tsvc-all kernels spec ablation notebooks clean

all: build

# deps installs only what is missing, so it is cheap to run every time.
deps:
	@missing=$$(for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "make deps: installing" $$missing; \
	  sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
	  $$sudo apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

build: deps
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/eqc

vet:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:" $$unformatted; exit 1; fi
	$(GO) vet ./...
	$(GO) tool staticcheck ./...

# Package align alone takes about 28 minutes in CI on the 6.18-kernel machines
# (1690 s in session 56), beside the others: 30m per package left no margin.
test: deps vet build
	$(GO) test -count=1 -timeout 45m ./...

bench: deps
	$(GO) test -run '^$$' -bench . -benchmem ./...

# fuzz runs every fuzz target briefly; FUZZTIME=5m for a longer run.
FUZZTIME ?= 20s
fuzz: deps
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; done

# The main job: sweep the TSVC suite's fixed-length kernels (gcc-12 and
# clang-16, -O0 against -O3; about 20 minutes on 2 cores) into
# results/tsvc/*.parquet and print the tables, then the loop kernels of
# bench/kernels into results/kernels (30 s a check, about 16 minutes;
# KERNELS=0 skips them); TIMEOUT= and JOBS= override the per-check timeout
# and the parallelism (see README.md). tsvc-all adds
# the length-parameter variant (hours: many of its checks run to the
# timeout), resuming what tsvc did.
tsvc: build
	./scripts/tsvc.sh

tsvc-all: build
	VARIANT=fixed,param ./scripts/tsvc.sh

# The loop kernels in the shape ordinary code has them (bench/kernels:
# arrays by pointer and length, early exits, loop nests), both compilers,
# -O0 against -O3; TIMEOUT= per check (default 60s), JOBS= checks at once.
kernels: build
	bin/eqc sweep --suite kernels --opt O3 --timeout $${TIMEOUT:-60s} --jobs $${JOBS:-0} --out results/kernels; \
	status=$$?; [ $$status -le 2 ] || exit $$status; bin/eqc report results/kernels

# The open SPEC-like suite (bench/spec): fetch the programs' sources from
# Debian, build, sweep a sample (SAMPLE= per program; FULL=1 for all) and
# print the tables; TIMEOUT=, JOBS=, OPT= as for the script (README.md).
# SPEC_DIR=/path/to/cpu2006 sweeps a SPEC CPU tree of your own instead.
spec: build
	./scripts/spec.sh

# The UB ablation the notebooks plot (notebooks/ablation.ipynb): one row per
# UB spec and function; ABLATION_SUITE=spec for the SPEC-like programs
# (TIMEOUT= as for tsvc; SAMPLE= functions per program with spec).
ABLATION_SUITE ?= corpus
ablation: build
	bin/eqc sweep --suite $(ABLATION_SUITE) --opt O2 --ub all --ub all,-sio --ub all,-tbsa --ub all,-obva --ub all,-restrict --ub none \
	  --timeout $${TIMEOUT:-60s} $${SAMPLE:+--sample $$SAMPLE} --out results/ablation; \
	bin/eqc report results/ablation

# The notebooks, executed headless on results/ (make tsvc, make ablation
# and make spec first; a notebook whose results are missing says which
# target makes them), each written as HTML beside it; figures go to
# notebooks/figures. NOTEBOOKS= runs only some (e.g. NOTEBOOKS=thesis.ipynb),
# EQC_RESULTS= points them at other results (notebooks/README.md).
NOTEBOOKS ?= *.ipynb
notebooks: build
	cd notebooks && for nb in $(NOTEBOOKS); do \
	  jupyter-nbconvert --to html --execute --ExecutePreprocessor.timeout=600 "$$nb" || exit 1; done

clean:
	rm -rf bin results/*/
