'use strict';

// nodecure: the JS half of --threadpool-timeout (doc/api/cure.md). The pool
// is libuv's and process-wide; src/node_threadpool_timeout.cc keeps alive
// what an abandoned task may still touch and calls in here, lazily and only
// when a task times out, to publish the diagnostics_channel events (C++
// makes the TimeoutErrors: src/node_cure_errors.h). Nothing here runs per
// request.

const {
  ArrayPrototypeIndexOf,
  ObjectFreeze,
} = primordials;

const binding = internalBinding('cure');
const {
  UV_ETIMEDOUT,
  UV_EABANDONCAP,
  UV_ESLOWRESOURCE,
  UV_EPOOLSTALLED,
} = binding;

let timeoutChannel;
let slowResourceChannel;
function lazyChannels() {
  if (timeoutChannel === undefined) {
    const dc = require('diagnostics_channel');
    timeoutChannel = dc.channel('cure:threadpool-timeout');
    slowResourceChannel = dc.channel('cure:slow-resource');
  }
}

// A libuv error number that becomes a TimeoutError (dns.lookup; fs decides
// in C++). UV_ETIMEDOUT is ours only once a budget was ever set, as in C++
// (ThreadPoolTimeout::IsTimeout()): getaddrinfo() can fail with ETIMEDOUT
// (EAI_SYSTEM) on its own, and with the feature off that error stays
// upstream's.
function isThreadpoolErrno(errno) {
  return errno === UV_EABANDONCAP || errno === UV_ESLOWRESOURCE ||
         errno === UV_EPOOLSTALLED ||
         (errno === UV_ETIMEDOUT && binding.isThreadpoolTimeoutEverEnabled());
}

// The error of an fs or DNS request, shaped like upstream's UVException and
// DNSException: `${message}, ${syscall} '${path}' -> '${dest}'` (DNS:
// `${syscall} ${hostname}`), with errno, syscall, path, dest, hostname, and
// for fs `outcome` ('none' or 'unknown', see doc/api/cure.md). Made in C++
// (src/node_cure_errors.h), as every TimeoutError; called from lib
// (DNSException).
function createThreadpoolError(errno, syscall, path, dest, hostname,
                               outcome) {
  return binding.newThreadpoolError(
    errno, syscall, path === undefined ? undefined : `${path}`,
    dest === undefined ? undefined : `${dest}`, hostname, outcome);
}

// The error of a crypto job or a zlib chunk (lib/zlib.js).
function createWorkTimeoutError(errno, kind, name) {
  return binding.newWorkTimeoutError(errno, kind, name);
}

// Asked by C++ before it enters the request's async context to publish.
function threadpoolChannelsActive() {
  lazyChannels();
  return timeoutChannel.hasSubscribers || slowResourceChannel.hasSubscribers;
}

// Called by C++ once per timeout, in the async context of the request, so
// that a subscriber can tell which client it was (AsyncLocalStorage).
function publishThreadpoolTimeout(kind, errno, code, syscall, path,
                                  slowResource) {
  lazyChannels();
  if (timeoutChannel.hasSubscribers) {
    timeoutChannel.publish(ObjectFreeze({
      __proto__: null,
      kind,
      code,
      errno,
      syscall,
      path,
      budget: binding.getThreadpoolTimeout(),
      action: 'throw',
    }));
  }
  if (slowResource && slowResourceChannel.hasSubscribers) {
    slowResourceChannel.publish(ObjectFreeze({
      __proto__: null,
      syscall,
      path,
    }));
  }
}

// Called by C++ once per task past its budget while the action is to report
// (--threadpool-timeout-action=report), on its loop thread, in the async
// context of its request where it has one, while the task runs on. `path`
// is the fs path or the DNS host or address.
function reportThreadpoolTimeout(kind, code, syscall, path, elapsed) {
  lazyChannels();
  const budget = binding.getThreadpoolTimeout();
  if (timeoutChannel.hasSubscribers) {
    timeoutChannel.publish(ObjectFreeze({
      __proto__: null,
      kind,
      code,
      errno: UV_ETIMEDOUT,
      syscall,
      path,
      budget,
      action: 'report',
      elapsed,
    }));
  }
  let what = kind;
  if (syscall !== undefined) what += ` ${syscall}`;
  if (path !== undefined) what += ` '${path}'`;
  require('internal/cure/report').warnReport(
    `threadpool:${what}`,
    code,
    `Threadpool task ${what} ran longer than its budget of ${budget} ms ` +
    '(--threadpool-timeout): reported, not stopped ' +
    `(--threadpool-timeout-action=report). It had run ${elapsed} ms.`);
}

const kActions = ['throw', 'report'];

// --threadpool-timeout-action: 'throw' or 'report'. Process-wide.
function getThreadpoolTimeoutAction() {
  return kActions[binding.getThreadpoolTimeoutAction()];
}

function setThreadpoolTimeoutAction(action) {
  binding.setThreadpoolTimeoutAction(ArrayPrototypeIndexOf(kActions, action));
}

// node:cure's counters, from uv_threadpool_get_stats(): process-wide, as
// the pool is.
function getThreadpoolStats() {
  const {
    0: timedOut,
    1: extended,
    2: abandoned,
    3: abandonedLive,
    4: capHits,
    5: slowResources,
    6: slowResourceMarks,
    7: slowResourceHits,
    8: keptLive,
    9: stalled,
    10: reported,
    11: hopped,
  } = binding.getThreadpoolStats();
  return {
    timedOut,
    extended,
    abandoned,
    abandonedLive,
    capHits,
    slowResources,
    slowResourceMarks,
    slowResourceHits,
    keptLive,
    stalled,
    reported,
    hopped,
  };
}

module.exports = {
  createThreadpoolError,
  createWorkTimeoutError,
  getThreadpoolStats,
  getThreadpoolTimeoutAction,
  isThreadpoolErrno,
  publishThreadpoolTimeout,
  reportThreadpoolTimeout,
  setThreadpoolTimeoutAction,
  threadpoolChannelsActive,
};
