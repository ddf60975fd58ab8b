'use strict';
// A worker_thread that ends while its Node-API async work's execute runs
// past --threadpool-timeout: the Environment's teardown still waits for
// execute to return before it runs the addon's instance-data finalizer and
// deletes the napi_env (as upstream's teardown does, since complete has not
// run yet).
//
// napi_work (test/cure-addons/napi_work.c): execute runs 400 ms, then writes
// into the instance data; the instance-data finalizer prints
// "finalize: execute done", or "finalize: execute RUNNING" if it runs while
// an execute still runs (the bug: it and the napi_env's deletion race the
// execute; the teardown also unloads the addon's shared library, so the
// child then dies of SIGSEGV in execute's code).
//
// Two ways for the worker to end, each in a child process with a budget of
// 50 ms: its script simply finishes (the worker lives until complete), or it
// calls process.exit() right after starting the work.
const common = require('../common');
const assert = require('assert');
const { spawnSync } = require('child_process');

if (process.argv[2] === 'child') {
  const { Worker } = require('worker_threads');
  const w = new Worker(__filename, { argv: ['in-worker', process.argv[3]] });
  w.on('exit', common.mustCall((code) => assert.strictEqual(code, 0)));
} else if (process.argv[2] === 'in-worker') {
  const { load } = require('../cure-addons/load');
  const addon = load('napi_work');
  addon.run(400, () => {});
  if (process.argv[3] === 'exit')
    process.exit(0);
} else {
  // Fails here, with the reason, if the addons were not built.
  require('../cure-addons/load').addonPath('napi_work');
  const failures = [];
  for (const mode of ['end', 'exit']) {
    const r = spawnSync(process.execPath, [
      '--threadpool-timeout=50', __filename, 'child', mode,
    ], { encoding: 'utf8' });
    const out = `${mode}: status ${r.status}, signal ${r.signal}\n${r.stderr}`;
    console.log(out);
    // Both modes are run before the verdict, so that it tells both.
    if (/finalize: execute RUNNING/.test(r.stderr) ||
        !/^finalize: execute done/m.test(r.stderr) ||
        r.signal !== null || r.status !== 0) {
      failures.push(out);
    }
  }
  assert.deepStrictEqual(failures, []);
}
