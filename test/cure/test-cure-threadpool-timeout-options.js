'use strict';
// --threadpool-timeout takes 0 (off) or a positive integer of milliseconds,
// on the command line and in NODE_OPTIONS; anything else stops startup. It
// is process-wide: node:cure changes it from the main thread only, and a
// Worker's execArgv cannot carry it.
const common = require('../common');
const assert = require('assert');
const { Worker } = require('worker_threads');
const cure = require('node:cure');
const { checkBudgetOption } = require('../common/cure');

checkBudgetOption('--threadpool-timeout', 'getThreadpoolTimeout');

// Off by default; the API changes it.
assert.strictEqual(cure.getThreadpoolTimeout(), 0);
assert.throws(() => cure.setThreadpoolTimeout(-1),
              { code: 'ERR_OUT_OF_RANGE' });
assert.throws(() => cure.setThreadpoolTimeout(1.5),
              { code: 'ERR_OUT_OF_RANGE' });
assert.throws(() => cure.setThreadpoolTimeout('5'),
              { code: 'ERR_INVALID_ARG_TYPE' });
cure.setThreadpoolTimeout(5000);
assert.strictEqual(cure.getThreadpoolTimeout(), 5000);
cure.setThreadpoolTimeout(0);
assert.strictEqual(cure.getThreadpoolTimeout(), 0);

// A worker reads the process's budget but may not change it.
const w = new Worker(`
  const { parentPort } = require('worker_threads');
  const cure = require('node:cure');
  let code;
  try { cure.setThreadpoolTimeout(1); } catch (err) { code = err.code; }
  parentPort.postMessage({ budget: cure.getThreadpoolTimeout(), code });
`, { eval: true });
w.on('message', common.mustCall(({ budget, code }) => {
  assert.strictEqual(budget, 0);
  assert.strictEqual(code, 'ERR_WORKER_UNSUPPORTED_OPERATION');
}));

// Process-wide: not an option of a worker.
assert.throws(() => new Worker('0', {
  eval: true, execArgv: ['--threadpool-timeout=10'],
}), { code: 'ERR_WORKER_INVALID_EXEC_ARGV' });
