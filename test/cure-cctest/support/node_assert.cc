// The units under test/cure-cctest link our src/ files without libnode.
// Their CHECKs call node::Assert(), which libnode defines in
// src/node_errors.cc; this is the same contract (print what failed, abort)
// without the rest of Node.

#include <cstdio>
#include <cstdlib>

#include "util.h"

namespace node {

void Assert(const AssertionInfo& info) {
  std::fprintf(stderr, "%s: %s:%s%s Assertion `%s' failed.\n", "cure_cctest",
               info.file_line, info.function, *info.function ? ":" : "",
               info.message);
  std::fflush(stderr);
  std::abort();
}

}  // namespace node
