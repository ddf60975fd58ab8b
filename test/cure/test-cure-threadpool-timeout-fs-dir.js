'use strict';
// fs.Dir's reads and its close are never timed: an abandoned readdir would
// write into the uv_dir_t, the DIR and the dirent buffers that dir.close()
// (which `for await` runs in its finally) or GC frees. So when the pool is
// stalled (its one worker stuck past the budget, no replacement allowed), a
// timed request queued behind the stuck task gets ERR_THREADPOOL_STALLED,
// and dir.read() and dir.close() queued beside it simply wait and then
// succeed.
//
// The child runs with one worker (UV_THREADPOOL_SIZE=1) and no abandoned
// thread allowed (UV_THREADPOOL_ABANDONED_LIMIT=0); the stuck task is
// Node-API async work whose execute spins for 1.5 s
// (test/cure-addons/napi_work.c).
const common = require('../common');
const assert = require('assert');
const fs = require('fs');
const tmpdir = require('../common/tmpdir');
const { load } = require('../cure-addons/load');
const { runInStallingPool } = require('../common/cure');

if (process.argv[2] === 'child') {
  const addon = load('napi_work');
  const dirPath = process.argv[3];
  const names = fs.readdirSync(dirPath).sort();
  // Opened synchronously: the asynchronous opendir is timed, and would be
  // stalled too.
  const reading = fs.opendirSync(dirPath, { bufferSize: 1024 });
  const closing = fs.opendirSync(dirPath);
  const events = [];

  addon.run(1500, common.mustCall((status, value) => {
    assert.strictEqual(status, 0);
    assert.strictEqual(value, 42);
    events.push('napi');
  }));

  fs.stat(dirPath, common.mustCall((err) => {
    assert.strictEqual(err?.code, 'ERR_THREADPOOL_STALLED');
    events.push('stat stalled');
  }));

  reading.read(common.mustSucceed((entry) => {
    assert.ok(names.includes(entry.name), entry.name);
    events.push('read');
    (async () => {
      // The rest of the entries, then a second Dir left by `break`.
      const seen = [entry.name];
      for await (const e of reading) seen.push(e.name);
      assert.deepStrictEqual(seen.sort(), names);
      let first;
      for await (const e of await fs.promises.opendir(dirPath)) {
        first = e.name;
        break;
      }
      assert.ok(names.includes(first));
      events.push('iterated');
    })().then(common.mustCall());
  }));

  closing.close(common.mustSucceed(() => events.push('close')));

  process.on('exit', () => {
    assert.deepStrictEqual(events,
                           ['stat stalled', 'napi', 'read', 'close',
                            'iterated']);
  });
  return;
}

// Fails in the parent, not in a child that cannot load it.
load('napi_work');
tmpdir.refresh();
const dirPath = tmpdir.resolve('dir');
fs.mkdirSync(dirPath);
for (let i = 0; i < 3000; i++) fs.writeFileSync(`${dirPath}/f${i}`, '');
runInStallingPool(__filename, dirPath);
