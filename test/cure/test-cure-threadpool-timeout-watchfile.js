// Flags: --threadpool-timeout=100
'use strict';
// fs.watchFile() polls with libuv's own fs-poll, which aborts the process if
// its stat is refused and frees its context in unwatchFile() while a stat
// may run: it is never timed and never refused, even on a path that a timed
// out request put on the slow-resource list.
const common = require('../common');
if (common.isWindows) common.skip('FIFOs are POSIX only');
const assert = require('assert');
const fs = require('fs');
const { spawnSync } = require('child_process');
const cure = require('node:cure');
const tmpdir = require('../common/tmpdir');

tmpdir.refresh();
const fifo = tmpdir.resolve('fifo');
if (spawnSync('mkfifo', [fifo]).status !== 0) common.skip('no mkfifo');

fs.readFile(fifo, common.mustCall((err) => {
  assert.strictEqual(err.code, 'ERR_THREADPOOL_TIMEOUT');
  assert.ok(cure.getThreadpoolStats().slowResources >= 1);
  // Listed: a timed request on it is refused ...
  fs.stat(fifo, common.mustCall((err) => {
    assert.strictEqual(err.code, 'ERR_SLOW_RESOURCE');
    // ... but the watcher's polls are neither refused nor timed.
    let polls = 0;
    let changes = 0;
    // Change the mtime until the watcher has seen three changes.
    const touch = setInterval(() => {
      const t = new Date(Date.UTC(2020, 0, 1) + ++changes * 1000);
      fs.utimesSync(fifo, t, t);  // synchronous: not refused either
    }, 20);
    const listener = common.mustCallAtLeast((curr) => {
      assert.ok(curr.isFIFO());
      if (++polls === 3) {
        clearInterval(touch);
        fs.unwatchFile(fifo, listener);
        fs.unlinkSync(fifo);
      }
    }, 3);
    fs.watchFile(fifo, { interval: 10 }, listener);
  }));
}));
