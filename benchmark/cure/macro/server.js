'use strict';
// The HTTP servers of the macro set, each answering GET / with a small body,
// run by the binary under test while tools/nodecure/bench_overhead.py loads
// them with autocannon from another CPU:
//
//   http      node:http, res.end('hello world')
//   express   Express 5, `middleware` empty middleware functions
//             ((req, res, next) => next(), as Express's own
//             benchmarks/middleware.js) before the route; res.send()
//   koa       Koa, `middleware` empty async middleware
//             (async (ctx, next) => { await next(); }, as Koa's own
//             benchmarks/middleware.js) before the one setting ctx.body
//   fastify   Fastify, a route returning { hello: 'world' } (JSON), as
//             Fastify's own benchmark
//
//   node server.js framework=express middleware=100 [exit=stdin]
//   {"port":40123,"pid":1234}      (on stdout, once listening)
//
// It serves until it is killed (SIGTERM), or with exit=stdin until its
// standard input ends, then exits normally: the instruction-count mode runs
// it under callgrind, which writes its counts at a normal exit.
const { parseArgs, exitAtEndOfInput } = require('./_harness.js');

const { framework, middleware, exit } =
  parseArgs({ framework: 'http', middleware: 1, exit: 'signal' });
const HOST = '127.0.0.1';
const BODY = 'hello world';

function ready(port) {
  if (exit === 'stdin') exitAtEndOfInput();
  process.stdout.write(JSON.stringify({ port, pid: process.pid }) + '\n');
}

function httpServer() {
  const http = require('http');
  const server = http.createServer((req, res) => {
    res.writeHead(200, {
      'Content-Type': 'text/plain',
      'Content-Length': BODY.length,
    });
    res.end(BODY);
  });
  server.listen(0, HOST, () => ready(server.address().port));
}

function expressServer() {
  const express = require('express');
  const app = express();
  for (let i = 0; i < middleware; i++)
    app.use((req, res, next) => next());
  app.get('/', (req, res) => res.send(BODY));
  const server = app.listen(0, HOST, () => ready(server.address().port));
}

function koaServer() {
  const Koa = require('koa');
  const app = new Koa();
  for (let i = 0; i < middleware; i++) {
    app.use(async (ctx, next) => {
      await next();
    });
  }
  app.use((ctx) => {
    ctx.body = BODY;
  });
  const server = app.listen(0, HOST, () => ready(server.address().port));
}

function fastifyServer() {
  const fastify = require('fastify')({ logger: false });
  fastify.get('/', async () => ({ hello: 'world' }));
  fastify.listen({ port: 0, host: HOST }, (err) => {
    if (err) throw err;
    ready(fastify.server.address().port);
  });
}

const servers = {
  http: httpServer,
  express: expressServer,
  koa: koaServer,
  fastify: fastifyServer,
};

if (!servers[framework]) {
  console.error(`unknown framework ${framework} (${Object.keys(servers)})`);
  process.exit(1);
}
servers[framework]();
