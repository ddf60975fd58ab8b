'use strict';
// ws (the Node.cure paper's macro set: 1.00) under a local echo load. The
// server, run by the binary under test, echoes every message; the client,
// run by the load generator's binary on another CPU, keeps `connections`
// WebSocket connections busy, each sending a `size`-byte message as soon as
// the echo of the previous one is back, for `duration` seconds.
//
//   node ws-echo.js role=server
//   {"port":40123,"pid":1234}          (on stdout, once listening)
//   node ws-echo.js role=client port=40123 connections=50 duration=5 size=64
//   {"messages":812345,"seconds":5.002,"errors":0}
//
// The server serves until it is killed (SIGTERM), or with exit=stdin until
// its standard input ends (as server.js's).
const { WebSocket, WebSocketServer } = require('ws');
const { parseArgs, exitAtEndOfInput } = require('./_harness.js');

const HOST = '127.0.0.1';
const args = parseArgs({
  role: 'server', port: 0, connections: 50, duration: 5, size: 64,
  exit: 'signal',
});

function server() {
  const wss = new WebSocketServer({ host: HOST, port: 0 });
  wss.on('connection', (ws) => {
    ws.on('message', (data, isBinary) => ws.send(data, { binary: isBinary }));
  });
  wss.on('listening', () => {
    if (args.exit === 'stdin') exitAtEndOfInput();
    process.stdout.write(
      JSON.stringify({ port: wss.address().port, pid: process.pid }) + '\n');
  });
}

function client({ port, connections, duration, size }) {
  const payload = Buffer.alloc(size, 'x');
  const url = `ws://${HOST}:${port}/`;
  let messages = 0;
  let errors = 0;
  let open = connections;
  let started = null;
  let deadline = Infinity;
  let opened = 0;

  function finish() {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    process.stdout.write(JSON.stringify({ messages, seconds, errors }) + '\n');
  }

  for (let i = 0; i < connections; i++) {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    ws.on('open', () => {
      // The clock starts when every connection is up.
      if (++opened === connections) {
        started = process.hrtime.bigint();
        deadline = Date.now() + duration * 1000;
        for (const c of sockets) c.send(payload);
      }
    });
    ws.on('message', (data) => {
      if (data.length !== size) errors++;
      messages++;
      if (Date.now() < deadline) ws.send(payload);
      else ws.close();
    });
    ws.on('error', () => errors++);
    ws.on('close', () => {
      if (started === null) {
        console.error(`ws-echo: a connection to ${url} closed before the ` +
                      'load began');
        process.exit(1);
      }
      if (--open === 0) finish();
    });
    sockets.push(ws);
  }
}

const sockets = [];
if (args.role === 'server') server();
else if (args.role === 'client') client(args);
else throw new Error(`unknown role ${args.role}`);
