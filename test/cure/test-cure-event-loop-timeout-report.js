// Flags: --event-loop-timeout=50 --event-loop-timeout-action=report
'use strict';
// --event-loop-timeout-action=report: a callback past its budget is not
// interrupted; it runs to its end. The place where it was when it overran
// is reported: a cure:event-loop-timeout message with action 'report' and
// an error (not thrown) whose stack names that place, in the callback's
// async context, and one TimeoutWarning per distinct place.
const common = require('../common');
const assert = require('assert');
const dc = require('diagnostics_channel');
const { AsyncLocalStorage } = require('async_hooks');
const cure = require('node:cure');

assert.strictEqual(cure.getEventLoopTimeoutAction(), 'report');

const client = new AsyncLocalStorage();
const kRunMs = 250;

function poisonedLoop() {
  const end = Date.now() + kRunMs;
  while (Date.now() < end);
  return end;
}

let finished = 0;
function handler(name) {
  try {
    assert.ok(poisonedLoop() > 0);
    finished++;
  } catch (err) {
    assert.fail(`${name}: ${err}`);
  }
}

const reports = [];
dc.subscribe('cure:event-loop-timeout', common.mustCall((message) => {
  assert.strictEqual(message.action, 'report');
  assert.ok(message.error instanceof TimeoutError);
  assert.strictEqual(message.error.code, 'ERR_EVENT_LOOP_TIMEOUT');
  assert.strictEqual(message.budget, 50);
  // Where the callback was at the overrun, taken then: in the loop.
  assert.match(message.error.stack, /at poisonedLoop /);
  // How long it had run at that point: past its budget, short of its end.
  assert.ok(message.elapsed >= 50, `elapsed ${message.elapsed}`);
  assert.ok(message.elapsed < kRunMs, `elapsed ${message.elapsed}`);
  // Published once the callback ran to its end, in its async context.
  assert.ok(finished >= reports.length + 1);
  reports.push(client.getStore());
}, 2));

process.on('warning', common.mustCall((warning) => {
  assert.strictEqual(warning.name, 'TimeoutWarning');
  assert.strictEqual(warning.code, 'ERR_EVENT_LOOP_TIMEOUT');
  assert.match(warning.message, /budget of 50 ms/);
  assert.match(warning.message, /reported, not stopped/);
  assert.match(warning.detail, /at poisonedLoop /);
}, 1));  // Once per distinct place: the second report is not a warning.

// Both callbacks overrun at the same place, through the same frames.
function schedule(name, delay) {
  client.run(name, () => {
    setTimeout(common.mustCall(() => handler(name)), delay);
  });
}
schedule('first', 1);
schedule('second', 2);

process.on('exit', () => {
  assert.strictEqual(finished, 2);
  assert.deepStrictEqual(reports, ['first', 'second']);
  const counts = cure.getTimeoutCounts();
  assert.strictEqual(counts.eventLoopReports, 2);
  assert.strictEqual(counts.eventLoop, 0);
});
