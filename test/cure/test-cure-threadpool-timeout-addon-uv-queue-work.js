// Flags: --threadpool-timeout=50
'use strict';
// An addon's own uv_queue_work() keeps libuv's contract under
// --threadpool-timeout: it is never timed (only uv_queue_work_timed() opts
// in), so after_work_cb runs once, after work_cb returned, with status 0.
//
// raw_work (test/cure-addons/raw_work.c) frees its baton in after_work_cb
// and aborts there if the status is not 0; its work_cb runs 400 ms, far past
// the 50 ms budget, then writes 42 into the baton. Several at once, so that
// some wait in the queue too.
const common = require('../common');
const assert = require('assert');
const cure = require('node:cure');
const { load } = require('../cure-addons/load');

const addon = load('raw_work');
const tasks = 6;

for (let i = 0; i < tasks; i++) {
  addon.run(400, common.mustCall((result) => {
    assert.strictEqual(result, 42);
  }));
}

process.on('exit', () => {
  // Not a timeout: the pool never declared these tasks late.
  assert.strictEqual(cure.getThreadpoolStats().timedOut, 0);
});
