'use strict';
// nodecure: helpers shared by the tests in test/cure/.

const assert = require('assert');
const { spawnSync } = require('child_process');
const common = require('./');
const { der, oid, integer } = require('./cure-asn1');

// A pseudo-random sequence of 30-bit integers (a linear congruential
// generator), the same for every run.
function lcg(seed = 12345) {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) & 0x3fffffff;
    return x;
  };
}

// A stress of budgets: `iterations` calls, each of an operation of
// `operations` ([name, sizes, op]) picked with `seed`, of one of its sizes,
// with a budget of 1 to 8 ms (node:cure's runWithEventLoopTimeout()). Each
// call returns, and onResult(name, size, result) checks what it returned,
// or throws the event-loop TimeoutError, which is counted. Returns that
// count.
function callsWithBudgets(operations, seed, iterations, onResult) {
  const { runWithEventLoopTimeout } = require('node:cure');
  const next = lcg(seed);
  let stopped = 0;
  for (let i = 0; i < iterations; i++) {
    const [name, sizes, op] = operations[next() % operations.length];
    const size = sizes[next() % sizes.length];
    const budget = 1 + next() % 8;
    let result;
    try {
      result = runWithEventLoopTimeout(budget, op, size);
    } catch (err) {
      // (Messages can quote inputs of megabytes: cut.)
      assert.ok(err instanceof TimeoutError,
                `${name}/${size}: ${String(err).slice(0, 300)}`);
      assert.strictEqual(err.code, 'ERR_EVENT_LOOP_TIMEOUT');
      stopped++;
      continue;
    }
    onResult(name, size, result);
  }
  return stopped;
}

// The stress above on three threads at once: the main thread (seed 1) and
// two workers of `file` (seeds 2 and 3), each making `iterations` calls of
// `operations` ([name, sizes, op], each op returning a string), checking
// every result that was not stopped against the results without a budget,
// then all of those again (nothing left behind by a stopped call). The main
// thread must see some calls stopped and some not. `file` calls this at its
// top level, on every thread.
function runStressOnThreads(file, operations, iterations) {
  const { Worker, isMainThread, workerData, parentPort } =
    require('worker_threads');
  const { runWithEventLoopTimeout } = require('node:cure');
  const expectedResults = () => {
    const out = {};
    for (const [name, sizes, op] of operations)
      for (const n of sizes) out[`${name}/${n}`] = op(n);
    return out;
  };
  const stress = (expected, seed) => {
    const check = (name, n, result) => {
      assert.strictEqual(result, expected[`${name}/${n}`], `${name}/${n}`);
    };
    const stopped = callsWithBudgets(operations, seed, iterations, check);
    assert.deepStrictEqual(runWithEventLoopTimeout(0, expectedResults),
                           expected);
    return stopped;
  };
  if (!isMainThread) {
    setImmediate(() => {
      parentPort.postMessage(stress(workerData.expected, workerData.seed));
    });
    return;
  }
  const expected = runWithEventLoopTimeout(0, expectedResults);
  for (const seed of [2, 3]) {
    const worker = new Worker(file, {
      workerData: { expected, seed },
      execArgv: ['--event-loop-timeout=60000'],
    });
    worker.on('message', common.mustCall((stopped) => {
      console.log(`worker ${seed}: ${stopped} of ${iterations} stopped`);
    }));
    worker.on('error', common.mustNotCall());
    worker.on('exit', common.mustCall((code) => assert.strictEqual(code, 0)));
  }
  setImmediate(common.mustCall(() => {
    const stopped = stress(expected, 1);
    console.log(`main: ${stopped} of ${iterations} stopped`);
    // The sizes make some calls stop and others finish.
    assert.ok(stopped > 0 && stopped < iterations, `${stopped}`);
  }));
}

// Asserts that fn() is interrupted by the event-loop TimeoutError of a
// budget of `budget` ms, and prints how long after its call. The design
// target is budget + 50 ms. The bound of budget + 1000 ms is on the main
// thread's CPU time (process.threadCpuUsage(): user and system), the work
// that ran before the stop: a loaded test machine makes the wall time of
// the same work many times longer (a stretch of 165 ms unpolled took 1.7 s
// in a CI run), and only a stretch without a poll makes the CPU time long.
// A call that waits instead of working (a blocked system call that is not
// interrupted) takes no CPU time: the wall time is bounded too, by budget
// + 10 s.
function assertInterrupted(label, fn, budget) {
  const start = performance.now();
  const cpuStart = process.threadCpuUsage();
  assert.throws(fn, (err) => {
    assert.ok(err instanceof TimeoutError, `${label}: ${err}`);
    assert.strictEqual(err.code, 'ERR_EVENT_LOOP_TIMEOUT');
    return true;
  }, `${label}: not interrupted`);
  const { user, system } = process.threadCpuUsage(cpuStart);
  const elapsed = performance.now() - start;
  const cpu = (user + system) / 1000;
  assert.ok(cpu < budget + 1000,
            `${label}: interrupted after ${elapsed} ms (${cpu} ms of CPU)`);
  assert.ok(elapsed < budget + 10000,
            `${label}: interrupted after ${elapsed} ms`);
  console.log(`${label}: interrupted after ${elapsed.toFixed(1)} ms ` +
              `(${cpu.toFixed(1)} ms of CPU)`);
}

// Asserts that fn() is stopped by a budget of `budget` ms of its own
// (node:cure's runWithEventLoopTimeout()), for tests whose callbacks have a
// long budget: after the TimeoutError the rest of a callback starts its
// budget over, and a major GC there (of the megabytes a stopped call
// leaves) must not cost it a second TimeoutError.
function assertStopped(label, fn, budget) {
  const { runWithEventLoopTimeout } = require('node:cure');
  assertInterrupted(label, () => runWithEventLoopTimeout(budget, fn), budget);
}

// assertStopped() of a call() that polls inside: a call that ran to its
// end would assign its result before the TimeoutError came (in the loop
// after it), so a stop inside it leaves the result unset. A call of some
// tens of milliseconds can end before a loaded machine lets the watchdog
// see its budget run out: `attempts` tries it that many times before it
// counts as run to its end (without the polls, every try runs to its end).
// A loaded machine can also let a small budget run out before the call
// starts (a CI run: 27.7 ms of wall time for 3.8 ms of CPU): that is tried
// again too, at least 3 times in all.
function assertStoppedInside(label, call, budget, attempts = 1) {
  for (let attempt = 1; ; attempt++) {
    let started = false;
    let result = 'unset';
    assertStopped(label, () => {
      started = true;
      result = call();
      for (;;);
    }, budget);
    if (!started && attempt < Math.max(attempts, 3)) {
      console.log(`${label}: stopped before the call, trying again`);
      continue;
    }
    assert.ok(started, `${label}: stopped before the call`);
    // (Not strictEqual(): its message could quote megabytes.)
    if (result === 'unset') return;
    assert.ok(attempt < attempts, `${label}: ran to its end`);
    console.log(`${label}: ran to its end, trying again`);
  }
}

// assertStopped() for a synchronous call that stops itself (in a section, or
// at a poll of its own): its TimeoutError's message, "Synchronous <api>
// stopped: ...", is made only where such a call stops, so it shows that the
// stop came inside the call and not from V8 after it returned.
function assertSyncCallStopped(label, api, fn, budget) {
  assertStopped(label, () => {
    try {
      fn();
    } catch (err) {
      assert.ok(err.message.startsWith(`Synchronous ${api} stopped: `),
                err.message);
      throw err;
    }
  }, budget);
}

// The PEM of an EncryptedPrivateKeyInfo of `key` (a KeyObject): PBES2 with
// PBKDF2-HMAC-SHA256 of `iterations` and AES-256-CBC (RFC 8018), written
// here so that the count can be any (OpenSSL's KDF runs it at every parse).
function encryptedPrivateKeyPem(key, passphrase, iterations) {
  const crypto = require('crypto');
  const salt = Buffer.alloc(16, 7);
  const iv = Buffer.alloc(16, 9);
  const kek = crypto.pbkdf2Sync(passphrase, salt, iterations, 32, 'sha256');
  const cipher = crypto.createCipheriv('aes-256-cbc', kek, iv);
  const data = Buffer.concat([
    cipher.update(key.export({ type: 'pkcs8', format: 'der' })),
    cipher.final(),
  ]);
  const info = der(0x30,
                   der(0x30,
                       oid('2a864886f70d01050d'),  // PBES2
                       der(0x30,
                           der(0x30,
                               oid('2a864886f70d01050c'),  // PBKDF2
                               der(0x30,
                                   der(0x04, salt),
                                   integer(iterations),
                                   der(0x30, oid('2a864886f70d0209'),  // SHA256
                                       Buffer.from([0x05, 0x00])))),
                           der(0x30,
                               oid('60864801650304012a'),  // AES-256-CBC
                               der(0x04, iv)))),
                   der(0x04, data));
  const b64 = info.toString('base64').match(/.{1,64}/g).join('\n');
  return `-----BEGIN ENCRYPTED PRIVATE KEY-----\n${b64}\n` +
         '-----END ENCRYPTED PRIVATE KEY-----\n';
}

// Runs each of `cases` in a setImmediate callback of its own, one after the
// other, so that a case's timeout never reaches the next one.
function runEachInACallback(cases) {
  (function next(i) {
    if (i === cases.length) {
      setTimeout(common.mustCall(), 1);
      return;
    }
    setImmediate(common.mustCall(() => {
      cases[i]();
      next(i + 1);
    }));
  })(0);
}

// A budget option (`--event-loop-timeout`, `--threadpool-timeout`) takes 0
// (off) or a positive integer of milliseconds, on the command line and in
// NODE_OPTIONS; anything else stops startup with exit code 9 and a message.
// `getter` names the node:cure function that reads the budget back.
function checkBudgetOption(option, getter) {
  const bad = ['abc', '-1', '1.5', '0x10', '1e3', ' 5', '2147483648',
               '99999999999999999999'];
  const message = new RegExp(
    `${option} must be 0 \\(off\\) or a positive integer`);
  for (const value of bad) {
    const r = spawnSync(process.execPath, [`${option}=${value}`, '-e', '0']);
    assert.strictEqual(r.status, 9, `${JSON.stringify(value)}: ${r.stderr}`);
    assert.match(String(r.stderr), message);
  }
  {
    // An empty value is refused by Node's option parser itself.
    const r = spawnSync(process.execPath, [`${option}=`, '-e', '0']);
    assert.strictEqual(r.status, 9, String(r.stderr));
    assert.match(String(r.stderr),
                 new RegExp(`${option}= requires an argument`));
  }
  {
    const r = spawnSync(process.execPath, ['-e', '0'], {
      env: { ...process.env, NODE_OPTIONS: `${option}=soon` },
    });
    assert.strictEqual(r.status, 9, String(r.stderr));
    assert.match(String(r.stderr), message);
  }

  // fs.writeSync: process.stdout.write() would queue a nextTick callback,
  // which a budget of 1 ms could interrupt on a loaded machine.
  const read = 'require("fs").writeSync(1, String(' +
               `require("node:cure").${getter}()))`;
  for (const value of ['0', '1', '100', '2147483647']) {
    const r = spawnSync(process.execPath, [`${option}=${value}`, '-e', read]);
    assert.strictEqual(r.status, 0, String(r.stderr));
    assert.strictEqual(String(r.stdout), value);
  }
  {
    const r = spawnSync(process.execPath, ['-e', read], {
      env: { ...process.env, NODE_OPTIONS: `${option}=250` },
    });
    assert.strictEqual(r.status, 0, String(r.stderr));
    assert.strictEqual(String(r.stdout), '250');
  }
  {
    // Off by default.
    const r = spawnSync(process.execPath, ['-e', read]);
    assert.strictEqual(r.status, 0, String(r.stderr));
    assert.strictEqual(String(r.stdout), '0');
  }
}

// The TimeoutError of a threadpool task (a crypto job named `job`) that ran
// past a budget of `budget` ms.
function assertThreadpoolTimeout(err, job, budget = 100) {
  assert.ok(err instanceof TimeoutError, err);
  assert.strictEqual(err.code, 'ERR_THREADPOOL_TIMEOUT');
  assert.match(err.message, new RegExp(`budget of ${budget} ms`));
  assert.match(err.message, new RegExp(job));
  return true;
}

// Runs derive(cases) in a process without nodecure's options (upstream's
// code paths) and returns its result: the reference for the derivations
// that nodecure computes itself once --threadpool-timeout is set. `derive`
// must be self-contained (it is sent as source).
function deriveWithoutOptions(derive, cases) {
  const r = spawnSync(process.execPath, [
    '-e', `process.stdout.write(JSON.stringify((${derive})(${
      JSON.stringify(cases)})))`,
  ], { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  assert.strictEqual(r.status, 0, r.stderr);
  const expected = JSON.parse(r.stdout);
  assert.strictEqual(expected.length, cases.length);
  return expected;
}

// What `source` (a script whose last expression is a string) evaluates to in
// a process without nodecure's options (upstream's code paths), given
// `nodeArgs` (other options, such as --expose-internals): the reference for
// the same source evaluated with them.
function printWithoutOptions(source, nodeArgs = []) {
  const r = spawnSync(process.execPath, [...nodeArgs, '-p', source],
                      { encoding: 'utf8', maxBuffer: 64 << 20 });
  assert.strictEqual(r.status, 0, r.stderr);
  return r.stdout.trim();
}

// Runs `file` again as a child (`child` and `args` after it) in a pool that
// stalls at once: one worker (UV_THREADPOOL_SIZE=1), no abandoned thread
// allowed (UV_THREADPOOL_ABANDONED_LIMIT=0), --threadpool-timeout=50; fails
// unless it exits with 0.
function runInStallingPool(file, ...args) {
  const child = spawnSync(
    process.execPath,
    ['--threadpool-timeout=50', file, 'child', ...args],
    {
      encoding: 'utf8',
      timeout: 60000,
      env: {
        ...process.env,
        UV_THREADPOOL_SIZE: '1',
        UV_THREADPOOL_ABANDONED_LIMIT: '0',
      },
    });
  assert.strictEqual(child.error, undefined, `${child.error}`);
  assert.strictEqual(child.status, 0,
                     `stdout: ${child.stdout}\nstderr: ${child.stderr}`);
}

// Runs `filename` again as a child ('child' as its first argument), with
// --event-loop-timeout=budget, beside a hung FUSE mount made by
// test/cure-fixtures/hung-fuse-mount.py (helperArgs: its options), and
// checks that the child succeeded. Skips where the mount cannot be made
// (not Linux, not root, no /dev/fuse, no python3).
function runBesideHungMount(filename, budget, helperArgs = []) {
  if (!common.isLinux) common.skip('Linux only');
  const helper = require('path').join(__dirname, '..', 'cure-fixtures',
                                      'hung-fuse-mount.py');
  const child = spawnSync('python3', [
    helper, ...helperArgs, process.execPath, `--event-loop-timeout=${budget}`,
    filename, 'child',
  ], { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  if (child.error?.code === 'ENOENT') common.skip('no python3');
  if (child.status === 77) common.skip(child.stderr.trim());
  process.stdout.write(child.stdout);
  assert.strictEqual(child.status, 0, `${child.stderr}\nsignal ${child.signal}`);
}

// A test of a read abandoned past its budget, `filename`: run as a child
// ('child' and the path of a new FIFO as its arguments) with --expose-gc and
// --threadpool-timeout=50, without the interrupt signal
// (UV_THREADPOOL_INTERRUPT_SIGNAL=0: a read of the FIFO stays blocked past
// its grace period, and is abandoned), where it calls child(fifo); checks
// that the promise child() returns resolves. Skips without FIFOs.
function runWithAbandonedFifoRead(filename, child) {
  if (process.argv[2] === 'child') {
    child(process.argv[3]).then(common.mustCall(() => console.log('done')));
    return;
  }
  if (common.isWindows) common.skip('FIFOs are POSIX only');
  const tmpdir = require('./tmpdir');
  tmpdir.refresh();
  const fifo = tmpdir.resolve('fifo');
  if (spawnSync('mkfifo', [fifo]).status !== 0) common.skip('no mkfifo');
  const result = spawnSync(
    process.execPath,
    ['--expose-gc', '--threadpool-timeout=50', filename, 'child', fifo],
    {
      encoding: 'utf8',
      timeout: 60000,
      env: { ...process.env, UV_THREADPOOL_INTERRUPT_SIGNAL: '0' },
    });
  assert.strictEqual(result.error, undefined, `${result.error}`);
  assert.strictEqual(result.status, 0,
                     `stdout: ${result.stdout}\nstderr: ${result.stderr}`);
  assert.strictEqual(result.stdout.trim(), 'done');
}

// In such a child: opens the FIFO as a FileHandle and checks that
// read(filehandle), a read of it, is abandoned (a TimeoutError whose
// outcome is 'unknown'). Resolves with the FileHandle.
async function abandonFifoRead(fifo, read) {
  const fh = await require('fs').promises.open(fifo, 'r+');
  await assert.rejects(read(fh), {
    name: 'TimeoutError',
    code: 'ERR_THREADPOOL_TIMEOUT',
    outcome: 'unknown',
  });
  return fh;
}

// Then, once the Buffers of that read should be garbage: runs GC, allocates fresh Buffers of `size`
// (they would take the memory of freed ones), then writes `size * count`
// bytes of 0x61 for the read, waits until its thread ended, checks that
// none of them reached a fresh Buffer (under `make test-asan` a
// use-after-free would also be reported), and closes `fh`.
async function checkLateReadLandsInItsBuffers(fh, size, count) {
  const { getThreadpoolStats } = require('node:cure');
  const { setImmediate: immediate } = require('timers/promises');
  for (let i = 0; i < 4; i++) {
    globalThis.gc();
    await immediate();
  }
  const fresh = [];
  for (let i = 0; i < 64; i++) fresh.push(Buffer.alloc(size, 1));

  require('fs').writeSync(fh.fd, Buffer.alloc(size * count, 0x61));
  // Its thread is reaped once the read returned.
  while (getThreadpoolStats().abandonedLive !== 0) await immediate();

  for (const b of fresh) {
    assert.strictEqual(b.indexOf(0x61), -1, 'a late read wrote into freed ' +
                       'memory that a new Buffer now uses');
  }
  await fh.close();
}

// The top of a test of a hung mount: in the parent, runs the test's file as
// a child beside the mount (runBesideHungMount()) and returns null, after
// which the test returns; in the child, returns the mount's path (`mnt`)
// and release(), which makes the FUSE daemon answer everything and go.
function hungMountInChild(filename, budget, helperArgs = []) {
  if (process.argv[2] !== 'child') {
    runBesideHungMount(filename, budget, helperArgs);
    return null;
  }
  const mnt = process.env.NODECURE_HUNG_MOUNT;
  const ctl = Number(process.env.NODECURE_HUNG_MOUNT_CTL);
  assert.ok(mnt && ctl > 2);
  return { mnt, release: () => require('fs').writeSync(ctl, 'release\n') };
}

// How many fds the process has open (Linux).
function openFdCount() {
  return require('fs').readdirSync('/proc/self/fd').length;
}

// Calls then() once no abandoned thread is left. There is no event for a
// thread's end: polls node:cure's abandonedLive counter.
function awaitNoAbandonedThread(then) {
  const { getThreadpoolStats } = require('node:cure');
  if (getThreadpoolStats().abandonedLive === 0) return then();
  setTimeout(awaitNoAbandonedThread, 10, then);
}

// fn() is interrupted (assertInterrupted()) and the work it gave the
// Priority Executor is left there: one priority task more timed out and
// abandoned.
function assertLeftOnAnExecutor(label, fn, budget) {
  const { getThreadpoolStats } = require('node:cure');
  const before = getThreadpoolStats();
  assertInterrupted(label, fn, budget);
  const after = getThreadpoolStats();
  assert.strictEqual(after.timedOut, before.timedOut + 1, label);
  assert.strictEqual(after.abandoned, before.abandoned + 1, label);
}

// Runs `statement` (source text of a synchronous call that outlasts 100 ms)
// in a callback of a Worker with --event-loop-timeout=100, where it must
// throw the TimeoutError, and checks that it stopped in place: no work was
// left on the Priority Executor (no priority task timed out or was
// abandoned). Then waits until no abandoned thread is left.
function assertStopsInPlaceInAWorker(statement) {
  const { Worker } = require('worker_threads');
  const { getThreadpoolStats } = require('node:cure');
  const before = getThreadpoolStats();
  const worker = new Worker(`
    const assert = require('assert');
    const crypto = require('crypto');
    setImmediate(() => {
      assert.throws(() => { ${statement}; }, { name: 'TimeoutError' });
    });
  `, { eval: true, execArgv: ['--event-loop-timeout=100'] });
  worker.on('exit', common.mustCall((code) => {
    assert.strictEqual(code, 0);
    const after = getThreadpoolStats();
    assert.strictEqual(after.timedOut, before.timedOut);
    assert.strictEqual(after.abandoned, before.abandoned);
    awaitNoAbandonedThread(common.mustCall());
  }));
}

// Loops until the event-loop budget interrupts it; returns how long it ran,
// the budget the TimeoutError reports and its stack.
function loopUntilInterrupted() {
  const start = performance.now();
  try {
    for (;;);
  } catch (err) {
    assert.ok(err instanceof TimeoutError, String(err));
    assert.strictEqual(err.code, 'ERR_EVENT_LOOP_TIMEOUT');
    return {
      elapsed: performance.now() - start,
      budget: Number(/budget of (\d+) ms/.exec(err.message)[1]),
      stack: err.stack,
    };
  }
}

// Records, for each async resource of `type` (e.g. 'FSREQCALLBACK'), the
// store of `als` it was made in and the stores its before() hooks saw:
// a Map asyncId -> { made, seen }.
function trackStores(als, type) {
  const requests = new Map();
  require('async_hooks').createHook({
    init(asyncId, t) {
      if (t === type)
        requests.set(asyncId, { made: als.getStore(), seen: [] });
    },
    before(asyncId) {
      requests.get(asyncId)?.seen.push(als.getStore());
    },
  }).enable();
  return requests;
}

// For the fs async-context tests: each call of NAMES saw its own store in
// RESULTS (name -> { store, result }); each request TRACKED (trackStores())
// completed in the context it was made in, and each call made some. In the
// child (argv[2] === 'child') prints RESULTS; in the parent compares them
// with a child run without the test's options (upstream's code path).
function checkStoresAgainstChild(results, names, tracked, file) {
  for (const name of names)
    assert.strictEqual(results[name].store, name);
  const completed = new Set();
  for (const { made, seen } of tracked.values()) {
    assert.deepStrictEqual(seen, [made]);
    completed.add(made);
  }
  for (const name of names)
    assert.ok(completed.has(name), `no request of ${name} completed`);
  if (process.argv[2] === 'child') {
    process.stdout.write(JSON.stringify(results));
    return;
  }
  const child = spawnSync(process.execPath, [file, 'child'],
                          { encoding: 'utf8' });
  assert.strictEqual(child.status, 0, child.stderr);
  assert.deepStrictEqual(results, JSON.parse(child.stdout));
}

// A TLS server on 127.0.0.1 (fixtures' agent1 key) that answers each
// connection, once its peer ended, with the SHA-256 (hex) and the length of
// what it received: "<digest> <length>". The TLS write tests compare it with
// digestOf() of what they wrote.
function tlsDigestServer() {
  const { createHash } = require('crypto');
  const fixtures = require('./fixtures');
  return require('tls').createServer({
    key: fixtures.readKey('agent1-key.pem'),
    cert: fixtures.readKey('agent1-cert.pem'),
  }, (socket) => {
    const hash = createHash('sha256');
    let length = 0;
    socket.on('data', (chunk) => {
      hash.update(chunk);
      length += chunk.length;
    });
    socket.on('end', () => socket.end(`${hash.digest('hex')} ${length}`));
  });
}

function digestOf(bytes) {
  const { createHash } = require('crypto');
  return `${createHash('sha256').update(bytes).digest('hex')} ${bytes.length}`;
}

// n distinct CJK ideographs (from U+4E00, cycling over 20,902): a host
// whose IDNA takes seconds at 16 Mi.
function ideographs(n) {
  return Array.from({ length: n },
                    (_, i) => String.fromCodePoint(0x4e00 + i % 20902))
    .join('');
}

// Evaluates `source` (an expression that gives a JSON array) within a
// generous budget and without one, and asserts that each element equals
// that of a run without the option (`expectedJson`, printWithoutOptions());
// describe(i) names the call of element i. Returns the parsed expectation.
function assertResultsAsWithoutOption(source, expectedJson,
                                      describe = (i) => `call ${i}`) {
  const { runWithEventLoopTimeout } = require('node:cure');
  const expected = JSON.parse(expectedJson);
  for (const [label, budget] of [['within a budget', 60_000],
                                 ['without a budget', 0]]) {
    const got = JSON.parse(runWithEventLoopTimeout(budget,
                                                   () => (0, eval)(source)));
    assert.strictEqual(got.length, expected.length, label);
    // One element at a time: a difference names its call, not megabytes.
    for (let i = 0; i < got.length; i++) {
      if (got[i] !== expected[i]) {
        assert.fail(`${label}: ${describe(i)} differs: ${got[i]} / ` +
                    `${expected[i]}`);
      }
    }
  }
  return expected;
}

module.exports = {
  assertResultsAsWithoutOption,
  ideographs,
  abandonFifoRead,
  digestOf,
  tlsDigestServer,
  assertInterrupted,
  assertStopped,
  assertStoppedInside,
  assertSyncCallStopped,
  encryptedPrivateKeyPem,
  assertLeftOnAnExecutor,
  assertStopsInPlaceInAWorker,
  awaitNoAbandonedThread,
  checkLateReadLandsInItsBuffers,
  hungMountInChild,
  openFdCount,
  runBesideHungMount,
  runWithAbandonedFifoRead,
  runInStallingPool,
  deriveWithoutOptions,
  printWithoutOptions,
  assertThreadpoolTimeout,
  checkBudgetOption,
  lcg,
  callsWithBudgets,
  runStressOnThreads,
  runEachInACallback,
  loopUntilInterrupted,
  trackStores,
  checkStoresAgainstChild,
};
