// Flags: --event-loop-timeout=50 --event-loop-turn-timeout=100 --event-loop-timeout-action=report
'use strict';
// A turn past its budget in report mode: the await loop that holds the loop
// runs to its end, and is reported with the stack of the reaction running
// when the turn overran.
const common = require('../common');
const assert = require('assert');
const dc = require('diagnostics_channel');

const kRunMs = 400;

async function awaitLoop() {
  const end = Date.now() + kRunMs;
  let turns = 0;
  while (Date.now() < end) {
    await null;
    turns++;
  }
  return turns;
}

let finished = false;
dc.subscribe('cure:event-loop-timeout', common.mustCallAtLeast((message) => {
  assert.strictEqual(message.action, 'report');
  assert.strictEqual(message.budget, 100);
  assert.match(message.error.message, /Turn of the event loop/);
  assert.match(message.error.stack, /at awaitLoop /);
  assert.ok(message.elapsed >= 100, `elapsed ${message.elapsed}`);
  assert.ok(finished);
}, 1));
process.on('warning', common.mustCall((warning) => {
  assert.strictEqual(warning.code, 'ERR_EVENT_LOOP_TIMEOUT');
  assert.match(warning.message, /--event-loop-turn-timeout/);
}));

setImmediate(common.mustCall(() => {
  awaitLoop().then(common.mustCall((turns) => {
    assert.ok(turns > 0);
    finished = true;
  }));
}));
