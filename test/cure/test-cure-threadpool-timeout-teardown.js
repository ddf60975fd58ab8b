'use strict';
// A process (or a worker) whose threadpool task timed out may end before
// the abandoned task does. What the task may still touch (the fs request,
// and what the request holds: its realm's fs BindingData) is then leaked on
// purpose instead of being freed under it, and the teardown must not trip
// over it (Realm::~Realm() checks that no BaseObject is left).
//
// A write() of 256 MiB to a regular file runs far past a 10 ms budget and
// is not interrupted by a signal, so the abandoned write is still running
// when the child, which has nothing else to do, tears down.
const common = require('../common');
const assert = require('assert');
const { spawnSync } = require('child_process');
const tmpdir = require('../common/tmpdir');

const size = 256 * 2 ** 20;

function writeHuge(file, done) {
  const fs = require('fs');
  const fd = fs.openSync(file, 'w');
  fs.write(fd, Buffer.alloc(size, 1), common.mustCall((err) => {
    assert.ok(err instanceof TimeoutError);
    assert.strictEqual(err.code, 'ERR_THREADPOOL_TIMEOUT');
    assert.strictEqual(err.syscall, 'write');
    done();
  }));
}

if (process.argv[2] === 'main') {
  const cure = require('node:cure');
  writeHuge(process.argv[3], () => {
    process.on('exit', () => {
      console.log(`live at exit: ${cure.getThreadpoolStats().abandonedLive}`);
    });
  });
} else if (process.argv[2] === 'worker') {
  const { Worker } = require('worker_threads');
  const w = new Worker(__filename, { argv: ['in-worker', process.argv[3]] });
  w.on('exit', common.mustCall((code) => assert.strictEqual(code, 0)));
} else if (process.argv[2] === 'in-worker') {
  writeHuge(process.argv[3], () => {});
} else {
  tmpdir.refresh();
  for (const mode of ['main', 'worker']) {
    const file = tmpdir.resolve(`${mode}.bin`);
    const r = spawnSync(process.execPath, [
      '--threadpool-timeout=10', __filename, mode, file,
    ], { encoding: 'utf8' });
    assert.strictEqual(r.signal, null, `${mode}: ${r.signal}\n${r.stderr}`);
    assert.strictEqual(r.status, 0, `${mode}:\n${r.stderr}`);
    if (mode === 'main') {
      // The teardown really happened with the task still running (else this
      // test would not test the leak path).
      assert.match(r.stdout, /^live at exit: [1-9]/m);
    }
  }
  tmpdir.refresh();
}
