# nodecure: build Node.js 22.22.2 plus our patch queue (see README.md).
#
#   ./configure && make        build ./node (build/node, through ccache)
#   make test                  our tests: GoogleTest units, JS tests, smoke
#   make test-upstream         Node's own test/parallel and test/sequential
#   make test-sanitizers       our GoogleTest units under ThreadSanitizer and ASan
#   make baseline              the unpatched twin, ./node-baseline
#   make export-patches        write build/node's commits back to patches/
#   make check-inputs          which pinned inputs have left or changed in the
#                              archive (no download)
#   make update-inputs         move followed inputs (c-ares, ICU) to their
#                              suite's current security release (maintainers)

PYTHON ?= python3
JOBS ?= $(shell nproc)
TREE := build/node
BASE := build/baseline
OUTDIR := out/Release

# One compile environment for every clone: ccache keyed relative to the
# checkout, so a fresh clone elsewhere hits the cache an earlier build warmed.
export CC := $(or $(NODECURE_CC),ccache clang-19)
export CXX := $(or $(NODECURE_CXX),ccache clang++-19)
export CC_host := $(CC)
export CXX_host := $(CXX)
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1
export CCACHE_SLOPPINESS := include_file_mtime,include_file_ctime
# Depend mode: a miss hashes the compiler's own -MMD output instead of running
# the preprocessor a second time (a cold build spends ~3 h compiling).
export CCACHE_DEPEND := 1
export CCACHE_MAXSIZE ?= 25G

.PHONY: all node baseline overlay test test-cctest test-js test-smoke \
        test-ehp test-upstream test-sanitizers test-asan ehp ehp-demo \
        export-patches check-inputs update-inputs clean distclean

all: node

$(TREE)/config.gypi:
	@echo "nodecure: build/node is not configured; running ./configure" >&2
	./configure

# Our new files change often: copy the changed ones into the tree.
overlay: $(TREE)/config.gypi
	@$(PYTHON) tools/nodecure/overlay.py

node: overlay
	$(MAKE) -C $(TREE)/out BUILDTYPE=Release -j$(JOBS) node
	ln -fs $(TREE)/$(OUTDIR)/node node

$(BASE)/config.gypi:
	./configure --baseline

baseline: $(BASE)/config.gypi
	$(MAKE) -C $(BASE)/out BUILDTYPE=Release -j$(JOBS) node
	ln -fs $(BASE)/$(OUTDIR)/node node-baseline

test: node
	$(PYTHON) tools/nodecure/test.py

test-cctest: node
	$(PYTHON) tools/nodecure/test.py cctest

test-js: node
	$(PYTHON) tools/nodecure/test.py js

test-smoke: node
	$(PYTHON) tools/nodecure/test.py smoke

test-ehp: node
	$(PYTHON) tools/nodecure/test.py ehp

# The EHP attack suite (doc/ehp.md): every attack against ./node and
# ./node-baseline, the table and the plots in build/ehp; about 25 minutes.
ehp: node baseline
	$(PYTHON) tools/nodecure/ehp.py

# The suite's app under attack, with live numbers, until Ctrl-C.
ehp-demo: node
	$(PYTHON) tools/nodecure/ehp.py --demo

test-upstream: node
	$(PYTHON) tools/nodecure/test_upstream.py

# Node's src/ and libuv under AddressSanitizer (build/asan; V8 from the
# cache), test/cure and Node's fs, dns, zlib and crypto tests with
# --threadpool-timeout=1 beside two CPU hogs. A pre-merge check: about an
# hour on 2 cores, too long for CI.
test-asan: node
	$(PYTHON) tools/nodecure/test_asan.py

# Our libuv-level GoogleTest units against build/node's (patched) libuv,
# built with -fsanitize=thread, then -fsanitize=address (with LeakSanitizer).
test-sanitizers: overlay
	CC=clang-19 CXX=clang++-19 UV_UNITTESTS_OUT=$(CURDIR)/build/test/uv-tsan JOBS=$(JOBS) \
	  tools/nodecure/uv_unittests.sh $(TREE)/deps/uv tsan
	CC=clang-19 CXX=clang++-19 UV_UNITTESTS_OUT=$(CURDIR)/build/test/uv-asan JOBS=$(JOBS) \
	  tools/nodecure/uv_unittests.sh $(TREE)/deps/uv asan

export-patches:
	$(PYTHON) tools/nodecure/export_patches.py

# Resolves every pinned input against the archive's current index and npm.
check-inputs:
	@$(PYTHON) tools/nodecure/check_inputs.py

# Rewrites tools/nodecure/inputs.py: review, ./configure, make test, commit.
update-inputs:
	$(PYTHON) tools/nodecure/update_inputs.py

clean:
	$(RM) node node-baseline
	$(RM) -r $(TREE)/out $(BASE)/out build/test

distclean:
	$(RM) node node-baseline
	$(RM) -r build
