#ifndef SRC_NODE_CURE_VERSION_H_
#define SRC_NODE_CURE_VERSION_H_

// nodecure's own version, reported as process.versions.cure. Node's version
// (process.version, NODE_MODULE_VERSION) stays upstream's.
#define NODECURE_VERSION_MAJOR 0
#define NODECURE_VERSION_MINOR 1
#define NODECURE_VERSION_PATCH 0

#define NODECURE_STRINGIFY_HELPER(n) #n
#define NODECURE_STRINGIFY(n) NODECURE_STRINGIFY_HELPER(n)
#define NODECURE_VERSION_STRING                                                \
  NODECURE_STRINGIFY(NODECURE_VERSION_MAJOR) "."                               \
  NODECURE_STRINGIFY(NODECURE_VERSION_MINOR) "."                               \
  NODECURE_STRINGIFY(NODECURE_VERSION_PATCH)

#endif  // SRC_NODE_CURE_VERSION_H_
