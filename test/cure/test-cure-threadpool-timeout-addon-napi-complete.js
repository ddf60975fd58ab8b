// Flags: --threadpool-timeout=50
'use strict';
// Node-API async work whose execute runs past --threadpool-timeout gets a
// replacement worker at the deadline, but its complete still waits for
// execute to return, and gets napi_ok: Node-API has no status for "timed
// out", and an addon cannot know that its execute is still running.
//
// napi_work (test/cure-addons/napi_work.c): execute runs 400 ms, then writes
// 42 into the instance data; complete calls cb(status, value).
const common = require('../common');
const assert = require('assert');
const { load } = require('../cure-addons/load');

const addon = load('napi_work');
const napiOk = 0;

for (let i = 0; i < 3; i++) {
  addon.run(400, common.mustCall((status, value) => {
    assert.strictEqual(status, napiOk);
    assert.strictEqual(value, 42);
  }));
}
