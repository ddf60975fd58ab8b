'use strict';
// The EHP demo: Event Handler Poisoning, live in a terminal. Serves app.js
// with nodecure (its budgets on: --event-loop-timeout,
// --event-loop-turn-timeout and --threadpool-timeout) and, with
// --baseline, with stock Node side by side; keeps legitimate clients on
// each (autocannon: 4 keep-alive connections asking for / and a small file);
// and sends both the attacks of attacks.js one after the other. Run by
// `make ehp-demo` (tools/nodecure/ehp.py); the suite itself is run.js, see
// doc/ehp.md.
//
//   node demo.js --node ./node [--baseline ./node-baseline] [--every S]
//                [--seconds N]
//
//   --every S     seconds between attacks (6)
//   --seconds N   stop after N seconds (default: run until Ctrl-C)
//
// Each second, one line: each server's legitimate responses in that second,
// and HELD when none came for more than a second. Each attack: its title,
// then each server's answer to the attacker when it comes (nodecure: 503 in
// about 100 ms). A held server is not sent the next attack; one held for
// 10 s never recovers: it is killed and restarted. Ctrl-C stops everything
// and removes the temporary files.
const autocannon = require('autocannon');
const { spawn, spawnSync } = require('child_process');
const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');
const { performance } = require('perf_hooks');
const { parseArgs } = require('util');
const { attacks, bomb } = require('./attacks');

const T = 100;                  // nodecure's budgets, in ms
const HELD_MS = 1000;           // no legitimate response for this long: held
const RESTART_MS = 10000;       // held for this long: never recovers
const LEGIT = ['/', '/file?name=hello.txt'];

const { values: opts } = parseArgs({ options: {
  node: { type: 'string' },
  baseline: { type: 'string' },
  every: { type: 'string', default: '6' },
  seconds: { type: 'string' },
} });
if (!opts.node) throw new Error('--node <binary> is required');
const every = Number(opts.every) * 1000;
const list = attacks.filter((a) => !a.control && !a.needs);

const servers = [{ label: 'nodecure', title: 'nodecure',
                   binary: path.resolve(opts.node),
                   flags: [`--event-loop-timeout=${T}`,
                           `--event-loop-turn-timeout=${2 * T}`,
                           `--threadpool-timeout=${T}`] }];
if (opts.baseline) {
  servers.push({ label: 'stock', title: 'stock Node',
                 binary: path.resolve(opts.baseline), flags: [] });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const now = () => performance.now();
let begin = now();
let stopped = false;
const log = (line) => console.log(
  `${String(Math.round((now() - begin) / 1000)).padStart(4)}s  ${line}`);

const files = fs.mkdtempSync(path.join(os.tmpdir(), 'nodecure-ehp-demo-'));
fs.writeFileSync(path.join(files, 'hello.txt'), 'hello from a small file\n');

// A FIFO without a writer: whoever opens it to read waits for ever.
function fifo(name) {
  if (fs.existsSync(path.join(files, name))) return name;
  const r = spawnSync('mkfifo', [path.join(files, name)]);
  if (r.status !== 0) throw new Error(`mkfifo ${name}: ${r.stderr}`);
  return name;
}

// Starts app.js for server `s`, then its legitimate load.
async function start(s) {
  const args = [...s.flags, path.join(__dirname, 'app.js')];
  const proc = s.proc = spawn(s.binary, args, {
    env: { ...process.env, EHP_FILES: files, NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  s.err = '';
  proc.stdout.setEncoding('utf8');
  proc.stderr.setEncoding('utf8');
  proc.stderr.on('data', (c) => { s.err = (s.err + c).slice(-2000); });
  s.port = await new Promise((resolve, reject) => {
    proc.stdout.on('data', (c) => {
      const m = (out += c).match(/listening (\d+)/);
      if (m) resolve(Number(m[1]));
    });
    proc.on('exit', () => reject(new Error(`${s.binary} exited: ${s.err}`)));
  });
  s.count = 0;
  s.last = now();
  const load = s.load = autocannon({
    url: `http://127.0.0.1:${s.port}`,
    connections: 4,
    duration: 24 * 3600,
    timeout: 60,  // s: a held request is pending, not an error
    requests: LEGIT.map((p) => ({ path: p })),
  }, () => {});
  load.on('response', () => {
    if (s.load !== load) return;  // the load of a server since restarted
    s.count++;
    s.last = now();
  });
}

async function restart(s, why) {
  s.restarting = true;
  log(`${s.title} ${why}: restarted`);
  s.load.stop();
  s.proc.kill('SIGKILL');
  await start(s);
  s.restarting = false;
}

const held = (s) => s.restarting || now() - s.last > HELD_MS;

// One request to the server on `port`; resolves { status or error, ms }.
function send(port, req) {
  const t = now();
  return new Promise((resolve) => {
    const headers = {};
    if (req.body !== undefined) {
      headers['content-type'] = req.type ?? 'application/octet-stream';
      headers['content-length'] = req.body.length;
    }
    const done = (r) => resolve({ ...r, ms: Math.round(now() - t) });
    http.request({ host: '127.0.0.1', port, method: req.method,
                   path: req.path, headers, agent: false })
      .on('response', (res) => {
        res.resume();
        res.on('end', () => done({ status: res.statusCode }));
      })
      .on('error', (e) => done({ error: e.code ?? e.message }))
      .end(req.body);
  });
}

// The requests of attack number k for each server, string bodies turned into
// Buffers. A server's FIFOs are its own; otherwise the servers share one
// build (a body may be 192 MiB).
async function build(attack, k) {
  const built = new Map();
  let reqs = null;
  for (const s of servers) {
    let fifos = false;
    const ctx = { files, bomb, host: undefined, fifo: (name) => {
      fifos = true;
      return fifo(`${name}-${k}-${s.label}`);
    } };
    if (!reqs || reqs.fifos) {
      reqs = [];
      for (let i = 0; i < attack.count; i++) {
        const req = await attack.request(ctx, i);
        if (typeof req.body === 'string') req.body = Buffer.from(req.body);
        reqs.push(req);
      }
      reqs.fifos = fifos;
    }
    built.set(s, reqs);
  }
  return built;
}

// Sends the attack to `s` and prints the answers: "nodecure: 503 in 104 ms",
// "503 x4" for four alike, in the slowest one's time.
async function attack(s, a, reqs) {
  const answers = [];
  for (let i = 0; i < reqs.length; i++) {
    if (a.every && i > 0) await sleep(a.every);
    answers.push(send(s.port, reqs[i]));
  }
  const results = await Promise.all(answers);
  const by = new Map();
  for (const r of results) {
    const key = r.status ?? `no answer (${r.error})`;
    by.set(key, (by.get(key) ?? 0) + 1);
  }
  const what = [...by].map(([key, n]) => (n > 1 ? `${key} x${n}` : key));
  const ms = Math.max(...results.map((r) => r.ms));
  if (!stopped) log(`     ${s.label}: ${what.join(', ')} in ${ms} ms`);
}

async function attackLoop() {
  for (let k = 0; !stopped; k++) {
    const a = list[k % list.length];
    const due = now() + every;
    // Built once the last attack's quick answers are in: building holds this
    // process's event loop (half a second for a 192 MiB body).
    await sleep(Math.min(1000, every / 2));
    let built = null;
    const slow = setTimeout(() => built || log(
      `building attack ${k + 1} (a gzip bomb takes a while)`), due - now());
    built = await build(a, k);
    clearTimeout(slow);
    await sleep(due - now());
    if (stopped) return;
    log(`ATTACK ${k + 1}: ${a.title}` +
        (a.notEhp ? ' (not EHP: stock Node survives it too)' : ''));
    for (const s of servers) {
      if (held(s)) log(`     ${s.label}: still held, not attacked`);
      else attack(s, a, built.get(s));
    }
  }
}

function tick() {
  const cells = servers.map((s) => {
    let state = '';
    if (s.restarting) state = '  restarting';
    else if (held(s)) state = `  HELD ${((now() - s.last) / 1e3).toFixed(1)} s`;
    const cell = `${s.label.padEnd(8)} ${String(s.count).padStart(5)} req/s`;
    s.count = 0;
    return (cell + state).padEnd(34);
  });
  log(cells.join(' |  ').trimEnd());
  for (const s of servers.filter((x) => !x.restarting)) {
    const { exitCode, signalCode } = s.proc;
    if (exitCode !== null || signalCode !== null) {
      const lines = s.err.trim().split('\n');  // the error and where
      const i = lines.findLastIndex((line) => /^\w*Error\b/.test(line));
      for (const line of i < 0 ? lines.slice(-2) : lines.slice(i, i + 2)) {
        log(`     ${s.label}: ${line.trim()}`);
      }
      restart(s, `exited (${signalCode ?? exitCode})`).catch(fail);
    } else if (now() - s.last > RESTART_MS) {
      restart(s, 'never recovered').catch(fail);
    }
  }
}

let ticker;
function stop(code = 0) {
  if (stopped) return;
  stopped = true;
  clearInterval(ticker);
  for (const s of servers) {
    s.load?.stop();
    s.proc?.kill('SIGKILL');
  }
  fs.rmSync(files, { recursive: true, force: true });
  log('stopped');
  process.exit(code);
}
function fail(err) {
  console.error(err);
  stop(1);
}
process.on('SIGINT', () => stop());
process.on('SIGTERM', () => stop());

async function main() {
  await Promise.all(servers.map(start));
  console.log('EHP demo: app.js under legitimate load, 4 connections each ' +
              `asking for ${LEGIT.join(' and ')}`);
  for (const s of servers) {
    console.log(`  ${s.label.padEnd(8)}  ${[s.binary, ...s.flags].join(' ')}`);
  }
  console.log(`an attack every ${every / 1000} s; Ctrl-C to stop\n`);
  begin = now();
  ticker = setInterval(tick, 1000);
  if (opts.seconds) setTimeout(() => stop(), Number(opts.seconds) * 1000);
  await attackLoop();
}

main().catch(fail);
