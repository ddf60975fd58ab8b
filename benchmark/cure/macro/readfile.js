'use strict';
// fs.readFile() of a small file on the threadpool, `concurrent` reads in
// flight, n in all: the cost of --threadpool-timeout on the work Node's own
// fs requests give the pool (four tasks a read: open, fstat, read, close).
// Upstream's benchmark/fs/readfile.js runs for a duration; this one does a
// fixed number of reads, so that callgrind can count instructions per read.
//
//   node readfile.js n=20000 concurrent=10 len=1024
const fs = require('fs');
const os = require('os');
const path = require('path');
const { createBenchmark } = require('./_harness.js');

const bench = createBenchmark(main, {
  n: 20000,
  concurrent: 10,
  len: 1024,
});

function main({ n, concurrent, len }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodecure-readfile-'));
  const file = path.join(dir, 'data');
  fs.writeFileSync(file, Buffer.alloc(len, 'x'));
  let started = 0;
  let finished = 0;
  function onRead(err, data) {
    if (err) throw err;
    if (data.length !== len) throw new Error('readFile gave a wrong length');
    if (++finished === n) {
      bench.end(n);
      fs.rmSync(dir, { recursive: true, force: true });
    } else if (started < n) {
      start();
    }
  }
  function start() {
    started++;
    fs.readFile(file, onRead);
  }
  setImmediate(() => {
    bench.start();
    for (let i = 0; i < Math.min(concurrent, n); i++) start();
  });
}
