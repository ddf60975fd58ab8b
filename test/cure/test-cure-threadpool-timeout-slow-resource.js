// Flags: --threadpool-timeout=100
'use strict';
// A FIFO whose read timed out is marked slow: later requests on it fail at
// once with ERR_SLOW_RESOURCE, asynchronously for the callback API, as a
// rejection for promises; synchronous calls, which take no pool worker, are
// not refused; unlinking it still works. Both diagnostics_channel events are published once.
const common = require('../common');
if (common.isWindows) common.skip('FIFOs are POSIX only');
const assert = require('assert');
const dc = require('diagnostics_channel');
const fs = require('fs');
const { spawnSync } = require('child_process');
const cure = require('node:cure');
const tmpdir = require('../common/tmpdir');

tmpdir.refresh();
const fifo = tmpdir.resolve('fifo');
if (spawnSync('mkfifo', [fifo]).status !== 0) common.skip('no mkfifo');

dc.subscribe('cure:threadpool-timeout', common.mustCall((message) => {
  assert.strictEqual(message.kind, 'fs');
  assert.strictEqual(message.code, 'ERR_THREADPOOL_TIMEOUT');
  assert.strictEqual(message.syscall, 'open');
  assert.strictEqual(message.path, fifo);
  assert.strictEqual(message.budget, 100);
}));
dc.subscribe('cure:slow-resource', common.mustCall((message) => {
  assert.strictEqual(message.syscall, 'open');
  assert.strictEqual(message.path, fifo);
}));

function assertSlow(err) {
  assert.ok(err instanceof TimeoutError);
  assert.strictEqual(err.code, 'ERR_SLOW_RESOURCE');
  assert.strictEqual(err.errno, -9101);
  assert.strictEqual(err.syscall, 'open');
  assert.strictEqual(err.path, fifo);
  return true;
}

fs.readFile(fifo, common.mustCall(async (err) => {
  assert.strictEqual(err.code, 'ERR_THREADPOOL_TIMEOUT');

  // Callback API: refused without another budget, but not synchronously.
  const refused = await new Promise((resolve) => {
    let returned = false;
    const start = process.hrtime.bigint();
    fs.readFile(fifo, common.mustCall((err) => {
      assert.ok(returned, 'called back before fs.readFile() returned');
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      assert.ok(ms < 100, `${ms} ms`);
      resolve(err);
    }));
    returned = true;
  });
  assertSlow(refused);

  await assert.rejects(fs.promises.readFile(fifo), assertSlow);
  // Synchronous calls never take a pool worker: they are not refused (a
  // stat of a FIFO does not block).
  assert.ok(fs.statSync(fifo).isFIFO());

  const stats = cure.getThreadpoolStats();
  assert.ok(stats.slowResourceMarks >= 1);
  assert.ok(stats.slowResourceHits >= 2);
  assert.ok(cure.getTimeoutCounts().slowResource >= 2);

  // Cleaning up always works, and an administrator can forget the marks.
  fs.unlinkSync(fifo);
  cure.clearSlowResources();
  assert.strictEqual(cure.getThreadpoolStats().slowResources, 0);
}));
