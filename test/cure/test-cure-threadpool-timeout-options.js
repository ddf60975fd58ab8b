'use strict';
// --threadpool-timeout takes 0 (off) or a positive integer of milliseconds,
// on the command line and in NODE_OPTIONS; anything else stops startup. It
// is process-wide: node:cure changes it from the main thread only, and a
// Worker's execArgv cannot carry it.
const common = require('../common');
const assert = require('assert');
const { spawnSync } = require('child_process');
const { Worker } = require('worker_threads');
const cure = require('node:cure');

const bad = ['abc', '-1', '1.5', '0x10', '1e3', ' 5', '2147483648',
             '99999999999999999999'];
for (const value of bad) {
  const r = spawnSync(process.execPath,
                      [`--threadpool-timeout=${value}`, '-e', '0']);
  assert.strictEqual(r.status, 9, `${JSON.stringify(value)}: ${r.stderr}`);
  assert.match(String(r.stderr),
               /--threadpool-timeout must be 0 \(off\) or a positive integer/);
}
{
  // An empty value is refused by Node's option parser itself.
  const r = spawnSync(process.execPath, ['--threadpool-timeout=', '-e', '0']);
  assert.strictEqual(r.status, 9, String(r.stderr));
  assert.match(String(r.stderr), /--threadpool-timeout= requires an argument/);
}
{
  const r = spawnSync(process.execPath, ['-e', '0'], {
    env: { ...process.env, NODE_OPTIONS: '--threadpool-timeout=soon' },
  });
  assert.strictEqual(r.status, 9, String(r.stderr));
  assert.match(String(r.stderr), /--threadpool-timeout must be/);
}

const read = 'process.stdout.write(String(' +
             'require("node:cure").getThreadpoolTimeout()))';
for (const value of ['0', '1', '100', '2147483647']) {
  const r = spawnSync(process.execPath,
                      [`--threadpool-timeout=${value}`, '-e', read]);
  assert.strictEqual(r.status, 0, String(r.stderr));
  assert.strictEqual(String(r.stdout), value);
}
{
  const r = spawnSync(process.execPath, ['-e', read], {
    env: { ...process.env, NODE_OPTIONS: '--threadpool-timeout=250' },
  });
  assert.strictEqual(r.status, 0, String(r.stderr));
  assert.strictEqual(String(r.stdout), '250');
}

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
