# nodecure: build Node.js 24.21.0 plus our patch queue (see README.md).
#
#   ./configure && make        build ./node (build/node, through ccache)
#   make test                  our tests: GoogleTest units, JS tests, smoke
#   make test-upstream         Node's own test/parallel and test/sequential
#   make test-sanitizers       our GoogleTest units under ThreadSanitizer and ASan
#   make test-sysroot          programs and libuv linked against the glibc 2.31
#                              sysroot need glibc <= 2.28 and run in Debian 11
#   make baseline              the unpatched twin, ./node-baseline
#   make bench-overhead        what the timeouts cost: macro and micro
#                              benchmarks, ./node against ./node-baseline
#   make export-patches        write build/node's commits back to patches/
#   make check-inputs          which pinned inputs have left or changed in the
#                              archive (no download)
#   make update-inputs         move followed inputs (c-ares, ICU) to their
#                              suite's current security release (maintainers)
#   make install               node, npm, npx, corepack and the headers into
#                              PREFIX (/usr/local) under DESTDIR
#   make binary                build/dist/nodecure-v24.21.0-cure.N-linux-x64.tar.xz
#   make headers               build/dist/nodecure-v24.21.0-cure.N-headers.tar.gz
#   make dist-mirror           build/dist/mirror, laid out as nodejs.org/dist
#   make deb                   build/dist/nodecure_24.21.0+cureN-1_amd64.deb
#   make test-dist             install them as a user would and use npm, npx,
#                              corepack, node-gyp, n and the .deb
#   make release               the portable release build (build/release):
#                              OpenSSL, zlib, brotli, nghttp2, sqlite, zstd
#                              linked statically, every unit against the
#                              glibc 2.31 sysroot (glibc 2.28 at most);
#                              then DIST_TREE=build/release

PYTHON ?= python3
JOBS ?= $(shell nproc)
# The upstream line: 24, or the next LTS line while it is ported
# (./configure --base=N), which is built beside it in build-N/ and linked as
# ./nodeN and ./nodeN-baseline until it passes everything
# (doc/contributing/rebasing.md).
DEFAULT_BASE := 24
NODE_BASE ?= $(DEFAULT_BASE)
export NODECURE_BASE := $(NODE_BASE)
ifeq ($(NODE_BASE),$(DEFAULT_BASE))
BUILDDIR := build
NODE_LINK := node
else
BUILDDIR := build-$(NODE_BASE)
NODE_LINK := node$(NODE_BASE)
endif
TREE := $(BUILDDIR)/node
BASE := $(BUILDDIR)/baseline
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
        test-ehp test-upstream test-sanitizers test-asan test-sysroot ehp ehp-demo \
        bench-overhead export-patches rebase check-inputs update-inputs clean distclean \
        install uninstall binary headers dist-mirror deb dist test-dist \
        release release-deps release-dry-run

all: node

$(TREE)/config.gypi:
	@echo "nodecure: $(TREE) is not configured; running ./configure" >&2
	./configure --base=$(NODE_BASE)

# Our new files change often: copy the changed ones into the tree.
overlay: $(TREE)/config.gypi
	@$(PYTHON) tools/nodecure/overlay.py

node: overlay
	$(MAKE) -C $(TREE)/out BUILDTYPE=Release -j$(JOBS) node
	ln -fs $(TREE)/$(OUTDIR)/node $(NODE_LINK)

$(BASE)/config.gypi:
	./configure --base=$(NODE_BASE) --baseline

baseline: $(BASE)/config.gypi
	$(MAKE) -C $(BASE)/out BUILDTYPE=Release -j$(JOBS) node
	ln -fs $(BASE)/$(OUTDIR)/node $(NODE_LINK)-baseline

test: node
	$(PYTHON) tools/nodecure/test.py

test-cctest: node
	$(PYTHON) tools/nodecure/test.py cctest

test-deps: overlay
	$(PYTHON) tools/nodecure/test.py deps

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

# What the timeouts cost (doc/contributing/overhead.md): Express, Koa,
# Fastify, ws, LokiJS, callback chains and upstream's benchmark/ subsets on
# ./node, options off and on (budgets that never fire), against
# ./node-baseline, run by run, plus callgrind's instruction counts; the
# table and the plots in build/bench-overhead. About 30-35 minutes on 2 cores:
# run it on an idle machine. ARGS=--quick for a smoke of a few minutes,
# ARGS=--help for the rest (runs, durations, cases).
bench-overhead: node baseline
	$(PYTHON) tools/nodecure/bench_overhead.py $(ARGS)

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
	CC=clang-19 CXX=clang++-19 UV_UNITTESTS_OUT=$(CURDIR)/$(BUILDDIR)/test/uv-tsan JOBS=$(JOBS) \
	  GTEST_DIR=$(CURDIR)/$(TREE)/deps/googletest NODE_SRC_DIR=$(CURDIR)/$(TREE)/src \
	  tools/nodecure/uv_unittests.sh $(TREE)/deps/uv tsan
	CC=clang-19 CXX=clang++-19 UV_UNITTESTS_OUT=$(CURDIR)/$(BUILDDIR)/test/uv-asan JOBS=$(JOBS) \
	  GTEST_DIR=$(CURDIR)/$(TREE)/deps/googletest NODE_SRC_DIR=$(CURDIR)/$(TREE)/src \
	  tools/nodecure/uv_unittests.sh $(TREE)/deps/uv asan

# The sysroot of issue 33 (tools/nodecure/sysroot.py, made if missing): a
# C++17 program, libuv from $(TREE) and the pinned libm functions built
# against it; their symbol versions and NEEDED, their output on the host and
# in a Debian 11 root ($(BUILDDIR)/test/bullseye-root, made with debootstrap
# when missing; as root). Seconds once the sysroot and the root exist.
test-sysroot:
	$(PYTHON) tools/nodecure/test_sysroot.py

export-patches:
	$(PYTHON) tools/nodecure/export_patches.py

# Replays a patch queue onto another Node release in $(BUILDDIR)/rebase and
# writes it back (doc/contributing/rebasing.md); stops at the first
# conflict, run again once it is resolved:
#   make rebase NODE=24.22.2               the queue onto Node 24.22.2
#   make rebase NODE_BASE=26 FROM=24       the queue onto Node 26, once
#                                          tools/nodecure/inputs_26.py pins it
rebase:
	$(PYTHON) tools/nodecure/rebase.py $(if $(FROM),--from $(FROM)) \
	  $(if $(NODE),--node $(NODE))

# Resolves every pinned input against the archive's current index and npm.
check-inputs:
	@$(PYTHON) tools/nodecure/check_inputs.py

# Rewrites tools/nodecure/inputs.py: review, ./configure, make test, commit.
update-inputs:
	$(PYTHON) tools/nodecure/update_inputs.py

# Installing nodecure like Node (doc/contributing/distributing.md). The
# packaged tree is build/node (./node), or DIST_TREE=build/release for the
# release build of make release.
PREFIX ?= /usr/local
DESTDIR ?=
DIST_TREE ?= $(TREE)
DIST := $(PYTHON) tools/nodecure/dist.py --tree $(DIST_TREE)
DIST_NODE := $(if $(filter build/release,$(DIST_TREE)),,node)

install: $(DIST_NODE)
	$(DIST) install --prefix '$(PREFIX)' --destdir '$(DESTDIR)'

uninstall:
	$(DIST) uninstall --prefix '$(PREFIX)' --destdir '$(DESTDIR)'

binary: $(DIST_NODE)
	$(DIST) binary

headers: $(DIST_NODE)
	$(DIST) headers

# Makes the tarballs first when they are missing or older than the node.
dist-mirror: $(DIST_NODE)
	$(DIST) mirror

deb: $(DIST_NODE)
	$(DIST) deb

# All of the above but install.
dist: $(DIST_NODE)
	$(DIST) all

# About 10 minutes: the packages when stale, then npm, npx, corepack,
# node-gyp, n and the .deb, with the registry and 127.0.0.1.
test-dist: $(DIST_NODE)
	$(PYTHON) tools/nodecure/test_dist.py --tree $(DIST_TREE)

# The portable release build: static OpenSSL 3.5, zlib, brotli, nghttp2,
# sqlite and zstd from Debian's sources (build/release-deps), then Node in
# build/release from build/node's tree, every unit compiled and linked
# against the sysroot of make test-sysroot, ending in a glibc 2.28 gate.
# Cold the first time (1-3 hours on 2 cores; it shares no cache entry with
# build/node), minutes after (building.md).
release-deps:
	$(PYTHON) tools/nodecure/release.py deps

release: $(TREE)/config.gypi
	$(PYTHON) tools/nodecure/release.py all

# What make release would run (the sources unpacked and patched only).
release-dry-run:
	$(PYTHON) tools/nodecure/release.py all --dry-run

clean:
	$(RM) $(NODE_LINK) $(NODE_LINK)-baseline
	$(RM) -r $(TREE)/out $(BASE)/out $(BUILDDIR)/test $(BUILDDIR)/test-dist \
	  $(BUILDDIR)/dist

distclean:
	$(RM) $(NODE_LINK) $(NODE_LINK)-baseline
	$(RM) -r $(BUILDDIR)
