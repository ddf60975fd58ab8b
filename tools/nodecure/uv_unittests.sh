#!/usr/bin/env bash
# nodecure: build a libuv source tree and GoogleTest with clang-19, link our
# GoogleTest units (test/cure-cctest/*.cc: the libuv-level tests and the
# Node C++ units that need only libuv, such as the TimeoutWatchdog) and run
# them. No Node build needed, only the configured tree's sources.
#
#   tools/nodecure/uv_unittests.sh <libuv-dir> [plain|tsan|asan]
#
# <libuv-dir> is a libuv tree such as deps/uv, patched or not: its C sources
# are the ones uv.gyp lists for Linux, plus our new files if they are present
# and not listed yet. Exits non-zero if a build step, a test or a sanitizer
# fails; prints GoogleTest's summary.
#
# Environment:
#   GTEST_DIR        googletest sources (default: build/node/deps/googletest)
#   UV_TEST_DIR      the tests (default: test/cure-cctest)
#   NODE_SRC_DIR     Node's src/ with our files (default: build/node/src)
#   UV_UNITTESTS_OUT build directory (default: $TMPDIR/uv-unittests-<mode>)
#   JOBS             parallel compiles (default: 1)
#   CC, CXX          compilers (default: clang-19, clang++-19)
#   GTEST_ARGS       extra arguments for the test binary (e.g. --gtest_filter)

set -euo pipefail

usage() {
  echo "usage: $0 <libuv-dir> [plain|tsan|asan]" >&2
  exit 2
}

if [ $# -lt 1 ] || [ $# -gt 2 ]; then usage; fi
UV=$(cd "$1" && pwd) || usage
MODE=${2:-plain}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

GTEST_DIR=${GTEST_DIR:-$ROOT/build/node/deps/googletest}
UV_TEST_DIR=${UV_TEST_DIR:-$ROOT/test/cure-cctest}
NODE_SRC_DIR=${NODE_SRC_DIR:-$ROOT/build/node/src}
# Our src/ files that the units test on their own (as in tools/nodecure/test.py).
NODE_UNITS=(node_timeout_watchdog.cc)
OUT=${UV_UNITTESTS_OUT:-${TMPDIR:-/tmp}/uv-unittests-$MODE}
JOBS=${JOBS:-1}
CC=${CC:-clang-19}
CXX=${CXX:-clang++-19}

[ -f "$UV/uv.gyp" ] || { echo "$UV: no uv.gyp, not a libuv tree" >&2; exit 2; }
[ -f "$GTEST_DIR/src/gtest-all.cc" ] ||
  { echo "$GTEST_DIR: googletest not found (set GTEST_DIR)" >&2; exit 2; }

case "$MODE" in
  plain) SAN=(-O2) ;;
  tsan)  SAN=(-O1 -g -fsanitize=thread) ;;
  asan)  SAN=(-O1 -g -fsanitize=address -fno-omit-frame-pointer) ;;
  *) usage ;;
esac

# libuv's own flags for Linux (uv.gyp), and the manager's checks that cost
# time on every task (UV__TPM_CHECKS: threadpool-manager.c).
UV_CFLAGS=(-std=gnu11 -g -pthread -fno-strict-aliasing
           -Wall -Wextra -Wno-unused-parameter -Wstrict-prototypes
           -D_LARGEFILE_SOURCE -D_FILE_OFFSET_BITS=64 -D_GNU_SOURCE
           -DUV__TPM_CHECKS=1
           -I"$UV/include" -I"$UV/src")
CXXFLAGS=(-std=gnu++20 -g -pthread -Wall
          -D_LARGEFILE_SOURCE -D_FILE_OFFSET_BITS=64
          -I"$GTEST_DIR/include" -I"$GTEST_DIR"
          -I"$UV/include" -I"$UV/src"
          -DNODE_WANT_INTERNALS=1 -I"$NODE_SRC_DIR"
          -I"$NODE_SRC_DIR/../deps/v8/include")

# The C sources uv.gyp builds on Linux, then ours if not listed yet.
mapfile -t SOURCES < <(python3 - "$UV" <<'EOF'
import ast, os, sys
uv = sys.argv[1]
gyp = ast.literal_eval(open(os.path.join(uv, 'uv.gyp')).read())
v = gyp['variables']
srcs = []
for key in ('uv_sources_common', 'uv_sources_posix', 'uv_sources_linux'):
  srcs += v.get(key, [])
srcs.append('src/unix/proctitle.c')  # 'OS in "linux mac ..."'
ours = ['src/threadpool-core.c', 'src/threadpool-manager.c', 'src/hangman.c',
        'src/priority-executor.c', 'src/slow-resource.c',
        'src/mount-table.c']
srcs += [s for s in ours if os.path.exists(os.path.join(uv, s))]
seen = set()
for s in srcs:
  if s.endswith('.c') and s not in seen:
    seen.add(s)
    print(s)
EOF
)

mkdir -p "$OUT/uv" "$OUT/gtest" "$OUT/test"
echo "uv_unittests: $MODE build of $UV (${#SOURCES[@]} C files) in $OUT"

# Compile one file: $1 compiler, $2 source, $3 object, rest flags.
compile() {
  local cc=$1 src=$2 obj=$3
  shift 3
  "$cc" "$@" -c "$src" -o "$obj"
}
export -f compile

# libuv: always rebuilt (cheap, and headers change).
rm -f "$OUT"/uv/*.o "$OUT/libuv.a"
# shellcheck disable=SC2016  # expanded by the inner bash
printf '%s\n' "${SOURCES[@]}" |
  xargs -P "$JOBS" -I{} bash -c \
    'compile "$0" "$1/{}" "$2/uv/$(echo {} | tr / _).o" "${@:3}"' \
    "$CC" "$UV" "$OUT" "${UV_CFLAGS[@]}" "${SAN[@]}"
ar rcs "$OUT/libuv.a" "$OUT"/uv/*.o

# GoogleTest: rebuilt when its flags change.
GTEST_STAMP="$OUT/gtest/flags"
GTEST_FLAGS="$CXX ${CXXFLAGS[*]} ${SAN[*]}"
if [ ! -f "$GTEST_STAMP" ] || [ "$(cat "$GTEST_STAMP")" != "$GTEST_FLAGS" ] ||
   [ ! -f "$OUT/gtest/gtest-all.o" ] || [ ! -f "$OUT/gtest/gtest_main.o" ]; then
  compile "$CXX" "$GTEST_DIR/src/gtest-all.cc" "$OUT/gtest/gtest-all.o" \
    "${CXXFLAGS[@]}" "${SAN[@]}" -w
  compile "$CXX" "$GTEST_DIR/src/gtest_main.cc" "$OUT/gtest/gtest_main.o" \
    "${CXXFLAGS[@]}" "${SAN[@]}" -w
  echo "$GTEST_FLAGS" > "$GTEST_STAMP"
fi

# The tests, their support files and the Node units they test.
shopt -s nullglob
TESTS=("$UV_TEST_DIR"/test_*.cc)
[ ${#TESTS[@]} -gt 0 ] || { echo "no test_*.cc in $UV_TEST_DIR" >&2; exit 2; }
TESTS+=("$UV_TEST_DIR"/support/*.cc)
for u in "${NODE_UNITS[@]}"; do TESTS+=("$NODE_SRC_DIR/$u"); done
rm -f "$OUT"/test/*.o
for t in "${TESTS[@]}"; do
  compile "$CXX" "$t" "$OUT/test/$(basename "$t" .cc).o" \
    "${CXXFLAGS[@]}" "${SAN[@]}"
done

"$CXX" "${SAN[@]}" -pthread -o "$OUT/uv_unittests" "$OUT"/test/*.o \
  "$OUT/gtest/gtest-all.o" "$OUT/gtest/gtest_main.o" "$OUT/libuv.a" \
  -ldl -lrt

# Run. Sanitizer reports fail the run.
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
if [ -f "$UV/tsansupp.txt" ]; then
  TSAN_OPTIONS="suppressions=$UV/tsansupp.txt $TSAN_OPTIONS"
fi
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:${ASAN_OPTIONS:-}"
LOG="$OUT/uv_unittests.log"
set +e
# Word-split GTEST_ARGS but do not glob it: a filter such as 'Slow*' must
# reach the binary (nullglob, set above, would drop it).
set -f
# shellcheck disable=SC2086
"$OUT/uv_unittests" ${GTEST_ARGS:-} > "$LOG" 2>&1
set +f
RC=$?
set -e

if [ $RC -ne 0 ]; then
  echo "---- uv_unittests ($MODE) failed (exit $RC); log: $LOG"
  grep -E '^\[  FAILED  \]|Failure|WARNING: ThreadSanitizer|ERROR: AddressSanitizer|ERROR: LeakSanitizer|SUMMARY:' \
    "$LOG" | head -60 || true
  tail -n 40 "$LOG"
fi
echo "---- uv_unittests ($MODE) summary"
grep -E '^\[==========\]|^\[  PASSED  \]|^\[  FAILED  \]|^\[  SKIPPED \]|YOU HAVE' \
  "$LOG" || echo "(no GoogleTest summary: the binary crashed)"
exit $RC
