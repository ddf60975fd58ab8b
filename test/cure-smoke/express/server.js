'use strict';
// An ordinary Express 5 app, unchanged from what runs on upstream Node.js.
// Prints "listening <port>" once it serves on 127.0.0.1.
const express = require('express');

const app = express();
app.get('/', (req, res) => res.send('hello from express'));
// A route with a backtracking regexp: an input of many a's and one b makes
// the match run for ages (ReDoS). With --event-loop-timeout it throws a
// TimeoutError, which Express turns into a 500 like any error.
app.get('/match', (req, res) => {
  res.json({ match: /^(a+)+$/.test(String(req.query.input ?? '')) });
});
app.get('/versions', (req, res) => res.json({
  node: process.version.slice(1),
  cure: process.versions.cure ?? null,
}));

const server = app.listen(0, '127.0.0.1', () => {
  console.log(`listening ${server.address().port}`);
});
process.on('SIGTERM', () => server.close());
