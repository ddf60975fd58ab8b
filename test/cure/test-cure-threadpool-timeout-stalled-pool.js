'use strict';
// When every worker of the pool is stuck in a task past its budget and the
// cap on abandoned threads forbids replacing it, an fs request queued behind
// them gets a definite outcome, ERR_THREADPOOL_STALLED, instead of waiting
// for ever; its path is not marked slow (it never ran), and once the stuck
// task returns the pool serves the path again.
//
// The child runs with one worker (UV_THREADPOOL_SIZE=1) and no abandoned
// thread allowed (UV_THREADPOOL_ABANDONED_LIMIT=0); the stuck task is
// Node-API async work whose execute spins for 3 s and ignores every hint
// (test/cure-addons/napi_work.c).
const common = require('../common');
const assert = require('assert');
const fs = require('fs');
const { load } = require('../cure-addons/load');
const { runInStallingPool } = require('../common/cure');

if (process.argv[2] === 'child') {
  const cure = require('node:cure');
  const addon = load('napi_work');
  const events = [];

  addon.run(3000, common.mustCall((status, value) => {
    assert.strictEqual(status, 0);  // napi_ok: complete waited for execute
    assert.strictEqual(value, 42);
    events.push('napi');
    fs.stat(__filename, common.mustSucceed(() => {
      events.push('stat again');
    }));
  }));

  fs.stat(__filename, common.mustCall((err) => {
    assert.strictEqual(err.name, 'TimeoutError');
    assert.strictEqual(err.code, 'ERR_THREADPOOL_STALLED');
    assert.strictEqual(err.errno, -9103);  // UV_EPOOLSTALLED
    assert.strictEqual(err.syscall, 'stat');
    assert.strictEqual(err.path, __filename);
    assert.match(err.message, /^threadpool stalled: .*, stat '/);
    const stats = cure.getThreadpoolStats();
    assert.strictEqual(stats.keptLive, 1);
    assert.strictEqual(stats.capHits, 1);
    assert.strictEqual(stats.abandoned, 0);
    assert.strictEqual(stats.stalled, 1);
    assert.strictEqual(stats.slowResources, 0);
    events.push('stat');
  }));

  process.on('exit', () => {
    assert.deepStrictEqual(events, ['stat', 'napi', 'stat again']);
    assert.strictEqual(cure.getThreadpoolStats().keptLive, 0);
  });
  return;
}

// Fails in the parent, not in a child that cannot load it.
load('napi_work');
runInStallingPool(__filename);
