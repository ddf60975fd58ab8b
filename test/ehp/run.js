'use strict';
// The EHP attack suite's runner: serves app.js with the binary under test,
// keeps legitimate clients on keep-alive connections (autocannon), sends one
// attack of attacks.js into that load, and measures what the legitimate
// clients saw. Run by tools/nodecure/ehp.py (`make ehp`, and `make test`'s
// smoke); see doc/ehp.md.
//
//   node run.js --node ./node [--baseline ./node-baseline] [--out DIR]
//               [--only id,id] [--smoke] [--reps N] [--duration MS]
//
// Each attack runs once per binary: ./node with its budgets on
// (--event-loop-timeout and --threadpool-timeout, T ms each, and
// --event-loop-turn-timeout, 2T), the baseline as it is. Per run:
//   - the legitimate load: 8 connections asking for / and for a small file
//     (the event loop and the threadpool), throughput counted per 100 ms;
//   - the attack at 1 s; the run lasts `duration` ms;
//   - the verdict: 'survived' when the longest gap without a legitimate
//     response from the attack on stays within the bound (below), no
//     legitimate request failed, the server is up and answers at the end,
//     and the attacker got the answer expected (503 for an attack, 200 for a
//     control); 'DoS' when the gap is longer or the server does not answer;
//     'crashed' when the server died; 'failed' otherwise.
// Then, on ./node only, each attack is repeated `reps` times against one
// server (budgets of REP_T ms, so that 1,000 repetitions take seconds): its
// threads and fds must come back to their level, and its RSS, after a
// garbage collection, must not grow over the second half of the
// repetitions (no leak).
//
// Exit status 0 when every attack and control survives on ./node and every
// attack (not the controls) is a DoS on the baseline; the table says which.
const autocannon = require('autocannon');
const { spawn, spawnSync } = require('child_process');
const dgram = require('dgram');
const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');
const { performance } = require('perf_hooks');
const { parseArgs } = require('util');
const { attacks, bomb } = require('./attacks');

const T = 100;                 // both budgets of the nodecure run, in ms
const TURN = 2 * T;            // its --event-loop-turn-timeout (flags())
// The repetitions' budgets: 20 ms for the threadpool, so that 1,000 take
// seconds; 50 ms for the event loop (a 100 ms turn), because with 20 ms a
// machine of 2 cores starved by the attacks' abandoned work ran out of it in
// the innocent callbacks that answer them (Express's error handler).
const REP_T = 20;
const REP_LOOP_T = 50;
const ATTACK_AT = 1000;        // ms into the load
const BIN = 100;               // ms per throughput bin
const CONNECTIONS = 8;
// The longest gap a surviving server may leave its legitimate clients
// without an answer: the budget, plus what a timed-out request costs after
// it (the TimeoutError's unwinding and 503, a killed child's reaping, the
// backlog of the 8 connections served by the replacement workers), plus
// the noise of a 2-core machine that also runs the load generator (the
// gaps measured before the attack reach 60-100 ms there). Doc: doc/ehp.md.
const GAP_BOUND = T + 300;
const SMOKE = ['redos', 'readfilesync-fifo', 'readfile-fifo', 'pbkdf2',
               'control-hash'];

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// --- The server -------------------------------------------------------------

function makeFiles() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodecure-ehp-'));
  fs.writeFileSync(path.join(dir, 'hello.txt'), 'hello from a small file\n');
  fs.writeFileSync(path.join(dir, 'big.bin'), Buffer.alloc(16 * 2 ** 20, 7));
  return dir;
}

function fifo(dir, name) {
  const file = path.join(dir, name);
  if (!fs.existsSync(file)) {
    const r = spawnSync('mkfifo', [file]);
    if (r.status !== 0) throw new Error(`mkfifo ${file}: ${r.stderr}`);
  }
  return name;
}

// /proc figures of a process: threads, open fds, resident memory (MiB);
// null once it is gone.
function procStats(pid) {
  let status;
  try {
    status = fs.readFileSync(`/proc/${pid}/status`, 'latin1');
  } catch {
    return null;
  }
  const field = (name) => Number(status.match(new RegExp(`${name}:\\s+(\\d+)`))[1]);
  return {
    threads: field('Threads'),
    fds: fs.readdirSync(`/proc/${pid}/fd`).length,
    rssMiB: Math.round(field('VmRSS') / 1024),
  };
}

// The DNS attack's resolver: a UDP socket on 127.0.0.2:53 that reads every
// query and never answers, and a resolv.conf naming it that the server
// sees through a private mount namespace (unshare -m; root only).
async function blackholeResolver(dir) {
  if (process.getuid?.() !== 0) return { why: 'needs root (port 53, unshare -m)' };
  if (spawnSync('unshare', ['-m', 'true']).status !== 0) {
    return { why: 'unshare -m is not allowed here' };
  }
  const socket = dgram.createSocket('udp4');
  socket.on('message', () => {});
  try {
    await new Promise((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(53, '127.0.0.2', resolve);
    });
  } catch (err) {
    return { why: `cannot bind 127.0.0.2:53: ${err.code}` };
  }
  const conf = path.join(dir, 'resolv.conf');
  fs.writeFileSync(conf, 'nameserver 127.0.0.2\noptions timeout:5 attempts:1\n');
  let n = 0;
  return {
    socket,
    host: () => `victim-${process.pid}-${n++}.ehp.test`,
    wrap: (cmd, args) => ['unshare', ['-m', 'sh', '-c',
      'mount --bind "$0" /etc/resolv.conf && exec "$@"', conf, cmd, ...args]],
  };
}

// The hung share's mount: the server runs in a mount namespace of its own
// with a FUSE file system at share/ whose daemon never answers
// (lib/hung-fuse-mount.py, from test/cure-fixtures: the server process
// itself holds the daemon's end and never reads it).
function hungShare(dir) {
  const helper = path.join(__dirname, 'lib', 'hung-fuse-mount.py');
  const share = path.join(dir, 'share');
  fs.mkdirSync(share, { recursive: true });
  const probe = spawnSync('python3', [helper, '--at', share, '--exec', 'true'],
                          { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    return { why: (probe.error?.message ?? probe.stderr).trim() ||
             `status ${probe.status}` };
  }
  return {
    wrap: (cmd, args) => ['python3', [helper, '--at', share, '--exec', cmd,
                                      ...args]],
  };
}

async function startServer(binary, flags, files, wrap) {
  let cmd = binary;
  let args = [...flags, path.join(__dirname, 'app.js')];
  if (wrap) [cmd, args] = wrap(cmd, args);
  const proc = spawn(cmd, args, {
    env: { ...process.env, EHP_FILES: files, NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const server = { proc, stderr: '', exit: null };
  proc.stderr.setEncoding('utf8');
  proc.stderr.on('data', (s) => { server.stderr = (server.stderr + s).slice(-4000); });
  proc.on('exit', (code, signal) => { server.exit = { code, signal }; });
  server.port = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(
      `${binary} did not start: ${server.stderr}`)), 30000);
    proc.stdout.setEncoding('utf8');
    proc.stdout.on('data', (s) => {
      out += s;
      const m = out.match(/listening (\d+)/);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    proc.on('exit', () => reject(new Error(
      `${binary} exited at startup: ${server.stderr}`)));
  });
  return server;
}

async function stopServer(server) {
  if (server.exit) return;
  const exited = new Promise((resolve) => server.proc.on('exit', resolve));
  server.proc.kill('SIGKILL');
  await exited;
}

// One request; resolves { status, ms } or { error, ms }, never rejects.
function send(port, req, timeoutMs) {
  const start = performance.now();
  return new Promise((resolve) => {
    const headers = {};
    if (req.body !== undefined) {
      headers['content-type'] = req.type ?? 'application/octet-stream';
      headers['content-length'] = Buffer.byteLength(req.body);
    }
    const r = http.request({ host: '127.0.0.1', port, method: req.method,
                             path: req.path, headers, agent: false });
    const done = (result) => {
      clearTimeout(timer);
      resolve({ ...result, ms: Math.round(performance.now() - start) });
    };
    const timer = setTimeout(() => {
      r.destroy();
      done({ error: 'no answer' });
    }, timeoutMs);
    r.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { if (body.length < 200) body += c; });
      res.on('end', () => done({ status: res.statusCode, body: body.slice(0, 200) }));
      res.on('error', (err) => done({ error: err.code ?? err.message }));
    });
    r.on('error', (err) => done({ error: err.code ?? err.message }));
    r.end(req.body);
  });
}

// The requests of an attack (`make` builds one), built before the load
// starts, their bodies as Buffers: encoding a 192 MiB string while sending
// would hold the runner's own event loop, and with it the load generator's
// measurements.
async function requests(attack, ctx, make = attack.request,
                        count = attack.count) {
  const reqs = [];
  for (let i = 0; i < count; i++) {
    const req = await make(ctx, i);
    if (typeof req.body === 'string') req.body = Buffer.from(req.body);
    reqs.push(req);
  }
  return reqs;
}

// --- One run: legitimate load with one attack in it -------------------------

async function runOnce(attack, binary, flags, ctx, duration) {
  const server = await startServer(binary, flags, ctx.files, ctx.wrap);
  const reqs = await requests(attack, ctx);
  const times = [];
  let legitBad = 0;
  const t0 = performance.now();
  const load = new Promise((resolve, reject) => {
    const instance = autocannon({
      url: `http://127.0.0.1:${server.port}`,
      connections: CONNECTIONS,
      duration: duration / 1000,
      timeout: 60,  // s: a request held by the attack is not counted as an error
      requests: (attack.legit ?? ['/', '/file?name=hello.txt'])
        .map((path) => ({ path })),
    }, (err, result) => (err ? reject(err) : resolve(result)));
    instance.on('response', (client, status) => {
      times.push(performance.now() - t0);
      if (status !== 200) legitBad++;
    });
  });

  await sleep(ATTACK_AT);
  const sent = performance.now() - t0;
  const answers = [];
  for (let i = 0; i < reqs.length; i++) {
    if (attack.every && i > 0) await sleep(attack.every);
    answers.push(send(server.port, reqs[i], duration + 5000 - ATTACK_AT));
  }
  const result = await load;
  // The attacker's answers, if any are coming: nodecure's came long ago.
  const attacker = await Promise.race([
    Promise.all(answers),
    sleep(2000).then(() => null),
  ]) ?? answers.map(() => ({ error: 'no answer', ms: duration - ATTACK_AT }));
  const alive = server.exit ? null : await send(server.port, { method: 'GET', path: '/' }, 3000);
  const exit = server.exit;
  await stopServer(server);

  // Throughput per bin, and the longest gap from the attack on.
  const series = new Array(Math.ceil(duration / BIN)).fill(0);
  for (const t of times) {
    const i = Math.floor(t / BIN);
    if (i < series.length) series[i]++;
  }
  const gapIn = (from, to) => {
    let last = from;
    let max = 0;
    for (const t of times) {
      if (t < from) continue;
      if (t > to) break;
      max = Math.max(max, t - last);
      last = t;
    }
    return Math.round(Math.max(max, to - last));
  };
  const maxGapMs = gapIn(sent, duration);
  const quietGapMs = gapIn(200, sent);

  const expected = attacker.every((a) => a.status === attack.expect);
  let verdict;
  if (exit) verdict = 'crashed';
  else if (maxGapMs > GAP_BOUND || alive?.status !== 200) verdict = 'DoS';
  else if (!expected || legitBad > 0) verdict = 'failed';
  else verdict = 'survived';
  return {
    binMs: BIN, attackAtMs: Math.round(sent), durationMs: duration, series,
    verdict, maxGapMs, quietGapMs, legitimate: result.requests.total,
    legitBad, attacker, exit, stderr: exit || verdict !== 'survived' ?
      server.stderr.slice(-1500) : undefined,
  };
}

// --- Repetitions: what 1,000 attacks leave behind ----------------------------

async function repeat(attack, binary, flags, ctx, reps) {
  const server = await startServer(binary, ['--expose-gc', ...flags],
                                   ctx.files, ctx.wrap);
  const reqs = await requests(attack, ctx, attack.small ?? attack.request,
                              attack.smallCount ?? attack.count);
  const statuses = {};
  const round = async () => {
    const these = attack.fresh ?
      await requests(attack, ctx, attack.small ?? attack.request,
                     attack.smallCount ?? attack.count) :
      reqs;
    const answers = await Promise.all(these.map((r) => send(server.port, r, 60000)));
    for (const a of answers) {
      const key = a.status ?? a.error;
      statuses[key] = (statuses[key] ?? 0) + 1;
    }
  };
  const settle = async (level) => {
    // Garbage first (app.js's /__gc): V8's heap grows while the bodies come
    // and go, and how far before it collects differs between V8 versions
    // (Node 24's grew 50-100 MiB where 22's grew 3-30).
    await send(server.port, { method: 'GET', path: '/__gc' }, 10000);
    // Abandoned work (an unanswered DNS query) returns within seconds.
    for (let i = 0; i < 200; i++) {
      const s = procStats(server.proc.pid);
      if (!s || !level || (s.threads <= level.threads + (attack.keeps ?? 0) &&
                           s.fds <= level.fds)) {
        return s;
      }
      await sleep(100);
    }
    return procStats(server.proc.pid);
  };
  const start = performance.now();
  const warm = Math.max(1, Math.floor(reps / 10));
  // The level: the server after legitimate work has started every thread
  // it keeps (the pool's workers among them).
  await Promise.all([0, 1, 2, 3, 4, 5, 6, 7].map((i) => send(server.port, {
    method: 'GET', path: i % 2 ? '/' : '/file?name=hello.txt' }, 10000)));
  const half = Math.max(warm + 1, Math.floor(reps / 2));
  const before = await settle();
  for (let i = 0; i < warm; i++) await round();
  const early = await settle(before);
  for (let i = warm; i < half && !server.exit; i++) await round();
  const mid = server.exit || !early ? null : await settle(before);
  for (let i = half; i < reps && !server.exit; i++) await round();
  const after = server.exit || !mid ? null : await settle(before);
  const alive = server.exit ? null : await send(server.port, { method: 'GET', path: '/' }, 3000);
  const exit = server.exit;
  await stopServer(server);
  const rssGrowth = after && mid ? after.rssMiB - mid.rssMiB : null;
  const ok = !exit && before && early && mid && after &&
    alive?.status === 200 &&
    after.threads <= before.threads + (attack.keeps ?? 0) &&
    after.fds <= before.fds &&
    rssGrowth <= RSS_SLACK_MIB &&
    Object.keys(statuses).every((k) => Number(k) === attack.expect);
  return { reps, seconds: Math.round((performance.now() - start) / 100) / 10,
           before, early, mid, after, rssGrowth, statuses, exit, ok,
           stderr: ok ? undefined : server.stderr.slice(-1500) };
}
// RSS, measured after a full garbage collection, may grow this much over the
// second half of the repetitions without being called a leak. What settles
// (malloc's arenas, V8's retained pages, the code of a tier-up) grows in the
// first half and stops: Node 24's grew 47-55 MiB, with 1,000 repetitions as
// with 3,000, mostly before the middle. A leak of one allocation per
// repetition grows in the second half as in the first: about 50 KiB or
// more a repetition comes past this with 1,000.
const RSS_SLACK_MIB = 24;

// --- The suite ---------------------------------------------------------------

function table(rows, reps) {
  const out = [];
  out.push(`| attack | category | nodecure: gap ms | attacker | verdict | stock: gap ms | attacker | verdict |${reps ? ' x' + reps + ' threads/fds/RSS |' : ''}`);
  out.push(`| --- | --- | ---: | --- | --- | ---: | --- | --- |${reps ? ' --- |' : ''}`);
  const who = (run) => (run ? [...new Set(run.attacker.map((a) => a.status ?? a.error))].join(', ') : '');
  for (const { attack, runs, rep } of rows) {
    const n = runs.find((r) => r.binary === 'nodecure');
    const b = runs.find((r) => r.binary === 'baseline');
    const cell = (r) => (r ? [r.maxGapMs, who(r), r.verdict] : ['', '', 'not run']);
    const repCell = rep ? (rep.skipped ? 'n/a' :
      `${rep.ok ? 'ok' : 'FAILED'}: ${rep.before?.threads}→${rep.after?.threads}, ` +
      `${rep.before?.fds}→${rep.after?.fds}, ${rep.rssGrowth >= 0 ? '+' : ''}${rep.rssGrowth} MiB`) : '';
    out.push(`| ${attack.id} | ${attack.category} | ${cell(n).join(' | ')} | ${cell(b).join(' | ')} |${reps ? ` ${repCell} |` : ''}`);
  }
  return out.join('\n');
}

async function main() {
  const { values: opts } = parseArgs({ options: {
    node: { type: 'string' },
    baseline: { type: 'string' },
    out: { type: 'string' },
    only: { type: 'string' },
    smoke: { type: 'boolean', default: false },
    reps: { type: 'string', default: '1000' },
    duration: { type: 'string' },
  } });
  if (!opts.node) throw new Error('--node <binary> is required');
  const reps = Number(opts.reps);
  const duration = Number(opts.duration ?? (opts.smoke ? 4000 : 6000));
  let chosen = attacks;
  if (opts.only || opts.smoke) {
    const ids = opts.only ? opts.only.split(',') : SMOKE;
    chosen = ids.map((id) => attacks.find((a) => a.id === id) ??
      (() => { throw new Error(`no attack ${id}`); })());
  }
  const out = opts.out && path.resolve(opts.out);
  if (out) fs.mkdirSync(out, { recursive: true });

  const files = makeFiles();
  const resolver = chosen.some((a) => a.needs === 'dns') ?
    await blackholeResolver(files) : null;
  const share = chosen.some((a) => a.needs === 'fuse') ? hungShare(files) : null;
  const flags = (t, loopT = t) => [`--event-loop-timeout=${loopT}`,
                                   `--event-loop-turn-timeout=${2 * loopT}`,
                                   `--threadpool-timeout=${t}`];
  const binaries = [['nodecure', path.resolve(opts.node), flags(T),
                     `nodecure (${flags(T).join(' ')})`]];
  if (opts.baseline) {
    binaries.push(['baseline', path.resolve(opts.baseline), [],
                   'stock Node (node-baseline)']);
  }

  const started = performance.now();
  const rows = [];
  let failures = 0;
  for (const attack of chosen) {
    const ctx = {
      files,
      fifo: (name) => fifo(files, `${name}-${rows.length}-${Date.now()}`),
      bomb,
      host: resolver?.host,
      wrap: attack.needs === 'dns' ? resolver?.wrap :
        attack.needs === 'fuse' ? share?.wrap : undefined,
    };
    const row = { attack, runs: [] };
    rows.push(row);
    if (attack.needs === 'dns' && !resolver?.host) {
      console.log(`# ${attack.id}: skipped: ${resolver?.why}`);
      row.skipped = resolver?.why;
      continue;
    }
    if (attack.needs === 'fuse' && !share?.wrap) {
      console.log(`# ${attack.id}: skipped: ${share?.why}`);
      row.skipped = share?.why;
      continue;
    }
    for (const [binary, file, flags, label] of binaries) {
      const run = await runOnce(attack, file, flags, ctx, duration);
      row.runs.push({ binary, label, ...run });
      const want = binary === 'nodecure' || attack.control || attack.notEhp ?
        'survived' : 'DoS';
      const ok = run.verdict === want;
      if (!ok) failures++;
      console.log(`${ok ? 'ok' : 'not ok'} - ${attack.id} on ${binary}: ${run.verdict}` +
                  ` (gap ${run.maxGapMs} ms, quiet ${run.quietGapMs} ms; attacker ` +
                  `${run.attacker.map((a) => `${a.status ?? a.error} in ${a.ms} ms`).join(', ')};` +
                  ` ${run.legitimate} legitimate, ${run.legitBad} failed)`);
      if (!ok && run.stderr) console.log(run.stderr.replace(/^/gm, '#   '));
    }
    if (reps > 0 && !attack.control && !attack.notEhp) {
      const rep = await repeat(attack, path.resolve(opts.node),
                               flags(REP_T, REP_LOOP_T), ctx, reps);
      row.rep = rep;
      if (!rep.ok) failures++;
      console.log(`${rep.ok ? 'ok' : 'not ok'} - ${attack.id} x${reps} on nodecure ` +
                  `(budgets ${REP_LOOP_T}/${REP_T} ms, ${rep.seconds} s): threads ${rep.before?.threads}→` +
                  `${rep.after?.threads}, fds ${rep.before?.fds}→${rep.after?.fds}, RSS ` +
                  `${rep.early?.rssMiB}→${rep.mid?.rssMiB}→${rep.after?.rssMiB} MiB; answers ${JSON.stringify(rep.statuses)}`);
      if (!rep.ok && rep.stderr) console.log(rep.stderr.replace(/^/gm, '#   '));
    }
  }
  resolver?.socket?.close();
  fs.rmSync(files, { recursive: true, force: true });

  const seconds = Math.round((performance.now() - started) / 1000);
  const summary = table(rows, reps > 0 ? reps : 0);
  console.log(`\n${summary}\n\n${failures} unexpected of ${rows.length} attacks in ${seconds} s`);
  if (out) {
    const results = {
      date: new Date().toISOString(), host: os.hostname(), cpus: os.cpus().length,
      budgets: { eventLoop: T, turn: TURN, threadpool: T,
                 repetitions: { eventLoop: REP_LOOP_T, threadpool: REP_T } },
      gapBoundMs: GAP_BOUND, seconds, failures,
      rows: rows.map(({ attack, runs, rep, skipped }) => ({
        attack: { id: attack.id, title: attack.title, category: attack.category,
                  control: !!attack.control, notEhp: attack.notEhp },
        runs, rep, skipped })),
    };
    fs.writeFileSync(path.join(out, 'results.json'), JSON.stringify(results, null, 1));
    fs.writeFileSync(path.join(out, 'results.md'), `${summary}\n`);
    const { plotAttack, plotSummary } = await import('./lib/plot.mjs');
    const plotted = rows.filter((r) => r.runs.length > 0);
    for (const r of plotted) await plotAttack(results.rows.find((x) => x.attack.id === r.attack.id).attack, r.runs, path.join(out, r.attack.id));
    await plotSummary(results.rows.filter((r) => r.runs.length > 0), path.join(out, 'summary'));
    console.log(`# results, table and plots in ${out}`);
  }
  process.exitCode = failures ? 1 : 0;
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 2;
});
