'use strict';

// nodecure: the process warnings of report-only mode
// (--event-loop-timeout-action=report, --threadpool-timeout-action=report;
// doc/api/cure.md). A callback or threadpool task past its budget is not
// stopped but reported: the diagnostics_channel event carries every report;
// a warning is emitted once per distinct place (the stack of the callback,
// or the pool request's kind, call and resource), at most kMaxPerMinute a
// minute on each thread, so that a hot spot does not flood the log.

const {
  DateNow,
  SafeSet,
} = primordials;

const kMaxPerMinute = 10;
const kWindowMs = 60 * 1000;
// Distinct places remembered; past that, the oldest half is forgotten (a
// place may then warn again).
const kMaxPlaces = 1024;

const warned = new SafeSet();
let windowStart = 0;
let warnedInWindow = 0;
let suppressed = 0;

function forgetOldest() {
  let drop = warned.size >> 1;
  for (const place of warned) {
    if (drop-- === 0) break;
    warned.delete(place);
  }
}

// Emits a TimeoutWarning for `place` unless one was emitted for it already
// or the rate limit is reached. `message` names what overran; `detail`
// (optional) is printed below it (the stack).
function warnReport(place, code, message, detail) {
  if (warned.has(place)) return;
  const now = DateNow();
  if (now - windowStart >= kWindowMs) {
    windowStart = now;
    warnedInWindow = 0;
  }
  if (warnedInWindow >= kMaxPerMinute) {
    suppressed++;
    return;
  }
  warnedInWindow++;
  if (warned.size >= kMaxPlaces) forgetOldest();
  warned.add(place);
  if (suppressed > 0) {
    message += ` (${suppressed} other report${suppressed === 1 ? ' was' : 's were'}` +
               ' not shown as warnings: at most ' +
               `${kMaxPerMinute} a minute)`;
    suppressed = 0;
  }
  process.emitWarning(message, { type: 'TimeoutWarning', code, detail });
}

module.exports = {
  warnReport,
};
