// Flags: --expose-internals --threadpool-timeout=100
'use strict';
// Every TimeoutError is made by one factory in C++ (src/node_cure_errors.h)
// from one table of codes, which internal/errors knows too (registered with
// E()). On a worker thread, which has its own TimeoutError class, a
// threadpool request's error is that thread's TimeoutError.
const common = require('../common');
const assert = require('assert');
const { Worker } = require('worker_threads');
const { codes } = require('internal/errors');
const { internalBinding } = require('internal/test/binding');

const kCodes = [
  'ERR_EVENT_LOOP_TIMEOUT',
  'ERR_THREADPOOL_TIMEOUT',
  'ERR_THREADPOOL_STALLED',
  'ERR_SLOW_RESOURCE',
];
assert.deepStrictEqual(internalBinding('cure').timeoutErrorCodes, kCodes);
for (const code of kCodes) {
  const err = new codes[code]('a message');
  assert.ok(err instanceof TimeoutError, code);
  assert.strictEqual(err.code, code);
  assert.strictEqual(err.name, 'TimeoutError');
  assert.strictEqual(err.message, 'a message');
}

// A request that never ends (a FIFO without a writer), in a worker: its
// TimeoutError is made on the worker's thread, with that thread's class.
if (common.isWindows) common.skip('FIFOs are POSIX only');
const tmpdir = require('../common/tmpdir');
tmpdir.refresh();
const fifo = tmpdir.resolve('fifo');
if (require('child_process').spawnSync('mkfifo', [fifo]).status !== 0)
  common.skip('no mkfifo');

const worker = new Worker(`
  const { parentPort, workerData } = require('worker_threads');
  require('fs').readFile(workerData, (err) => {
    parentPort.postMessage({
      ownClass: err instanceof TimeoutError,
      proto: Object.getPrototypeOf(err) === TimeoutError.prototype,
      code: err.code,
      outcome: err.outcome,
      syscall: err.syscall,
      message: err.message,
    });
  });
`, { eval: true, workerData: fifo });
worker.on('message', common.mustCall((result) => {
  assert.ok(['none', 'unknown'].includes(result.outcome), result.outcome);
  delete result.outcome;
  assert.deepStrictEqual(result, {
    ownClass: true,
    proto: true,
    code: 'ERR_THREADPOOL_TIMEOUT',
    syscall: 'open',
    message: 'threadpool task ran longer than its budget of 100 ms ' +
             `(--threadpool-timeout), open '${fifo}'`,
  });
}));
worker.on('exit', common.mustCall((code) => assert.strictEqual(code, 0)));
