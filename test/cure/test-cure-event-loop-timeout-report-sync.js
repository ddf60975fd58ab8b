// Flags: --event-loop-timeout=50 --event-loop-timeout-action=report
'use strict';
// In report mode a synchronous call is not stopped: fs.readFileSync() of a
// FIFO waits for its writer, as upstream, and returns its data; the
// callback is reported afterwards, at the first check in the code that runs
// after the call (here, the entry of the function it calls next).
const common = require('../common');
if (common.isWindows) common.skip('no FIFOs');
const assert = require('assert');
const { execFileSync, spawn } = require('child_process');
const dc = require('diagnostics_channel');
const fs = require('fs');
const path = require('path');
const tmpdir = require('../common/tmpdir');

tmpdir.refresh();
const fifo = path.join(tmpdir.path, 'fifo');
execFileSync('mkfifo', [fifo]);

dc.subscribe('cure:event-loop-timeout', common.mustCall((message) => {
  assert.strictEqual(message.action, 'report');
  assert.match(message.error.stack, /at afterTheRead .*\n +at readTheFifo /);
}));
process.on('warning', common.mustCall((warning) => {
  assert.strictEqual(warning.code, 'ERR_EVENT_LOOP_TIMEOUT');
}));

function readTheFifo() {
  const data = fs.readFileSync(fifo, 'utf8');
  return afterTheRead(data);
}

function afterTheRead(data) {
  return data;
}

setImmediate(common.mustCall(() => {
  // The writer comes well past the budget.
  spawn('sh', ['-c', `sleep 0.4; printf data > "${fifo}"`]);
  const start = performance.now();
  assert.strictEqual(readTheFifo(), 'data');
  assert.ok(performance.now() - start >= 300);
}));
