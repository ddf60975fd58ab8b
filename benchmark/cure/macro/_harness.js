'use strict';
// The harness of benchmark/cure/macro's in-process benchmarks (callbacks.js,
// loki.js, pbkdf2.js): the protocol of upstream's benchmark/common.js cut
// down to one configuration per process, so that these files need nothing
// but their npm dependencies and run from the folder that
// tools/nodecure/bench_overhead.py installs them into.
//
//   node loki.js docs=5000 scale=1
//   cure/macro/loki.js docs=5000 scale=1: 41,234.5
//
// Arguments are key=value; numbers are parsed as numbers. The line printed
// is upstream's (name, configuration, operations per second), which the
// runner parses for every in-process benchmark, upstream's and ours alike.
// Forked by upstream's benchmark/run.js or compare.js (which see this folder
// as the benchmark cure/macro, through index.js), it reports to the parent
// as upstream's harness does instead. parseArgs() is also the argument
// parser of server.js and ws-echo.js.
//
// As in upstream's harness, main() runs in a process.nextTick() callback, not
// in the evaluation of the main module: --event-loop-timeout bounds every
// callback but that first evaluation (doc/api/cure.md), so a benchmark that
// ran there would not measure what the option costs.

const path = require('path');

// strict: an unknown key is an error; otherwise it is ignored, as upstream's
// harness keeps unknown keys aside (compare.js's --set applies to every
// benchmark it runs).
function parseArgs(defaults, { strict = true } = {}) {
  const config = { ...defaults };
  for (const arg of process.argv.slice(2)) {
    const m = /^([^=]+)=(.*)$/s.exec(arg);
    if (m && !strict && !Object.hasOwn(defaults, m[1])) continue;
    if (!m || !Object.hasOwn(defaults, m[1])) {
      console.error(`bad argument: ${arg} (keys: ${Object.keys(defaults)})`);
      process.exit(1);
    }
    const [, key, value] = m;
    if (typeof defaults[key] === 'number') {
      const n = Number(value);
      if (value === '' || !Number.isFinite(n)) {
        console.error(`bad argument: ${arg} (a number)`);
        process.exit(1);
      }
      config[key] = n;
    } else {
      config[key] = value;
    }
  }
  return config;
}

function formatRate(rate) {
  const [int, frac] = String(rate).split('.');
  const grouped = int.replace(/(\d)(?=(?:\d\d\d)+(?!\d))/g, '$1,');
  return frac ? `${grouped}.${frac}` : grouped;
}

function createBenchmark(main, defaults) {
  const config = parseArgs(defaults, { strict: false });
  const name = `cure/macro/${path.basename(require.main.filename)}`;
  if (process.send)
    process.send({ type: 'config', name, queueLength: 1 });
  let started = null;
  let ended = false;
  const bench = {
    config,
    start() {
      if (started !== null) throw new Error('start() called twice');
      started = process.hrtime.bigint();
    },
    end(operations) {
      const now = process.hrtime.bigint();
      if (started === null) throw new Error('end() without start()');
      if (ended) throw new Error('end() called twice');
      if (!(operations > 0)) throw new Error('end() needs an operation count');
      ended = true;
      const seconds = Number(now - started) / 1e9;
      if (process.send) {
        process.send({ type: 'report', name, conf: config,
                       rate: operations / seconds,
                       time: seconds.toFixed(9) });
        return;
      }
      let conf = '';
      for (const [key, value] of Object.entries(config))
        conf += ` ${key}=${JSON.stringify(value)}`;
      process.stdout.write(
        `${name}${conf}: ${formatRate(operations / seconds)}\n`);
    },
  };
  process.nextTick(() => main(config));
  return bench;
}

// A small seeded generator (mulberry32): the same data on every binary and
// every run, which the instruction-count mode needs.
function prng(seed) {
  let a = seed >>> 0;
  return function next() {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Exit normally (so that callgrind writes its counts) once standard input
// ends: the runner closes it after the last request.
function exitAtEndOfInput() {
  process.stdin.on('data', () => {});
  process.stdin.on('end', () => process.exit(0));
}

module.exports = { createBenchmark, exitAtEndOfInput, parseArgs, prng };
