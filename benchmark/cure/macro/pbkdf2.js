'use strict';
// crypto.pbkdf2() on the threadpool: the cost of --threadpool-timeout on
// work that the threadpool runs (upstream's benchmark/crypto has no pbkdf2
// benchmark in v22). `concurrent` calls stay in flight (the threadpool has 4
// threads unless UV_THREADPOOL_SIZE says otherwise); n calls in all, each of
// `iterations` rounds of HMAC-`digest`.
//
//   node pbkdf2.js n=2000 concurrent=8 iterations=1000
const crypto = require('crypto');
const { createBenchmark } = require('./_harness.js');

const bench = createBenchmark(main, {
  n: 2000,
  concurrent: 8,
  iterations: 1000,
  keylen: 32,
  digest: 'sha256',
});

function main({ n, concurrent, iterations, keylen, digest }) {
  const password = Buffer.from('correct horse battery staple');
  const salt = Buffer.from('nodecure bench-overhead salt');
  const expected =
    crypto.pbkdf2Sync(password, salt, iterations, keylen, digest);
  let started = 0;
  let finished = 0;
  function onKey(err, key) {
    if (err) throw err;
    if (!key.equals(expected)) throw new Error('pbkdf2 gave a wrong key');
    if (++finished === n) bench.end(n);
    else if (started < n) start();
  }
  function start() {
    started++;
    crypto.pbkdf2(password, salt, iterations, keylen, digest, onKey);
  }
  setImmediate(() => {
    bench.start();
    for (let i = 0; i < Math.min(concurrent, n); i++) start();
  });
}
