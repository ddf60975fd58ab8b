// Flags: --threadpool-timeout=50
'use strict';
// A Nan::AsyncWorker runs to the end under --threadpool-timeout: NAN queues
// it with plain uv_queue_work(), which is never timed. NAN ignores libuv's
// status and calls HandleOKCallback() whenever the after-work callback runs,
// then deletes the worker; were it called at the deadline, the callback
// would get a half-computed result and Execute() would write into the
// deleted worker.
//
// nan_worker (test/cure-addons/nan_worker.cc): Execute() runs 400 ms, then
// sets the value to 42 (-1 before); HandleOKCallback() passes it on.
const common = require('../common');
const assert = require('assert');
const cure = require('node:cure');
const { load } = require('../cure-addons/load');

const addon = load('nan_worker');

addon.run(400, common.mustCall((err, value) => {
  assert.strictEqual(err, null);
  assert.strictEqual(value, 42);
  assert.strictEqual(cure.getThreadpoolStats().timedOut, 0);
}));
