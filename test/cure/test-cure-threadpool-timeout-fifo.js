// Flags: --threadpool-timeout=100
'use strict';
// Four fs.readFile()s of a FIFO that nobody writes to hold all four workers
// of the pool. Each gets a TimeoutError once its task has run 100 ms, and a
// small fs.readFile() issued behind them is served by the replacement
// workers, long before the poisoned tasks could ever end.
const common = require('../common');
if (common.isWindows) common.skip('FIFOs are POSIX only');
const assert = require('assert');
const fs = require('fs');
const util = require('util');
const { spawnSync } = require('child_process');
const tmpdir = require('../common/tmpdir');

tmpdir.refresh();
const fifo = tmpdir.resolve('fifo');
if (spawnSync('mkfifo', [fifo]).status !== 0) common.skip('no mkfifo');
const small = tmpdir.resolve('small.txt');
fs.writeFileSync(small, 'legitimate');

const start = process.hrtime.bigint();
const elapsedMs = () => Number(process.hrtime.bigint() - start) / 1e6;

for (let i = 0; i < 4; i++) {
  fs.readFile(fifo, common.mustCall((err, data) => {
    assert.strictEqual(data, undefined);
    assert.ok(err instanceof TimeoutError);
    assert.strictEqual(err.name, 'TimeoutError');
    assert.strictEqual(err.code, 'ERR_THREADPOOL_TIMEOUT');
    // Upstream's properties of a failed fs request are kept.
    assert.strictEqual(util.getSystemErrorName(err.errno), 'ETIMEDOUT');
    assert.strictEqual(err.syscall, 'open');
    assert.strictEqual(err.path, fifo);
    assert.match(err.message, /budget of 100 ms/);
    assert.ok(elapsedMs() >= 100, `${elapsedMs()} ms`);
  }));
}

fs.readFile(small, 'utf8', common.mustSucceed((data) => {
  assert.strictEqual(data, 'legitimate');
  // Generous bound for loaded machines: one budget plus slack, not "never".
  assert.ok(elapsedMs() < 2000, `${elapsedMs()} ms`);
}));

process.on('exit', () => {
  const { threadpool } = require('node:cure').getTimeoutCounts();
  assert.ok(threadpool >= 4, `threadpool timeouts: ${threadpool}`);
});
