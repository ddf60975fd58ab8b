// Flags: --event-loop-timeout=100
'use strict';
// A worker_thread's synchronous calls obey its own callbacks' budget: each
// thread registers its own stop, so a readFileSync() of a FIFO in a worker
// throws the TimeoutError there, and the main thread's calls are untouched.
const common = require('../common');
if (common.isWindows) common.skip('FIFOs are POSIX only');
const assert = require('assert');
const { spawnSync } = require('child_process');
const { Worker } = require('worker_threads');
const tmpdir = require('../common/tmpdir');

tmpdir.refresh();
const fifo = tmpdir.resolve('fifo');
if (spawnSync('mkfifo', [fifo]).status !== 0) common.skip('no mkfifo');

const worker = new Worker(`
  const { parentPort, workerData } = require('worker_threads');
  setImmediate(() => {
    try {
      require('fs').readFileSync(workerData);
      parentPort.postMessage('not stopped');
    } catch (err) {
      parentPort.postMessage({ name: err.name, code: err.code,
                               syscall: err.syscall, message: err.message });
    }
  });
`, { eval: true, workerData: fifo });

worker.on('message', common.mustCall((m) => {
  assert.strictEqual(m.name, 'TimeoutError');
  assert.strictEqual(m.code, 'ERR_EVENT_LOOP_TIMEOUT');
  assert.strictEqual(m.syscall, 'open');
  assert.match(m.message, /Synchronous open stopped/);
}));
worker.on('exit', common.mustCall((code) => assert.strictEqual(code, 0)));
