'use strict';
// The client of the instruction-count mode of tools/nodecure/bench_overhead.py
// for the servers: a fixed number of operations, one at a time over one
// connection, so that the server under callgrind does the same work in
// every run (no concurrency, no time limit, no pipelining). Run by the load
// generator's binary, outside valgrind: its own speed does not matter.
//
//   node seq-client.js kind=http port=40123 operations=2000
//   node seq-client.js kind=ws port=40123 operations=2000 size=64
//   {"operations":2000,"errors":0}
//
// kind=http: GET / on one keep-alive connection; a status other than 200
// or an empty body is an error. kind=ws: `size`-byte messages, each sent
// when the echo of the previous one is back; an echo of another length is
// an error. Exit code 1 when the connection fails.
const { parseArgs } = require('./_harness.js');

const HOST = '127.0.0.1';
const { kind, port, operations, size } =
  parseArgs({ kind: 'http', port: 0, operations: 1000, size: 64 });

function done(errors) {
  process.stdout.write(JSON.stringify({ operations, errors }) + '\n');
}

function fail(err) {
  console.error(`seq-client: ${kind} to port ${port}: ${err.message}`);
  process.exit(1);
}

function http() {
  const { Agent, get } = require('http');
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let errors = 0;
  let left = operations;
  function next() {
    if (left-- === 0) {
      agent.destroy();
      return done(errors);
    }
    get({ host: HOST, port, path: '/', agent }, (res) => {
      let bytes = 0;
      res.on('data', (chunk) => { bytes += chunk.length; });
      res.on('end', () => {
        if (res.statusCode !== 200 || bytes === 0) errors++;
        next();
      });
    }).on('error', fail);
  }
  next();
}

function ws() {
  const { WebSocket } = require('ws');
  const payload = Buffer.alloc(size, 'x');
  const socket = new WebSocket(`ws://${HOST}:${port}/`,
                               { perMessageDeflate: false });
  let errors = 0;
  let left = operations;
  socket.on('open', () => socket.send(payload));
  socket.on('message', (data) => {
    if (data.length !== size) errors++;
    if (--left > 0) socket.send(payload);
    else socket.close();
  });
  socket.on('close', () => {
    if (left > 0) fail(new Error(`closed with ${left} messages to go`));
    done(errors);
  });
  socket.on('error', fail);
}

if (kind === 'http') http();
else if (kind === 'ws') ws();
else fail(new Error(`unknown kind ${kind}`));
