'use strict';
// The cost of --event-loop-timeout on an HTTP hello-world server (issue 3's
// target: within 1% of upstream). Compare ./node against ./node-baseline
// (make baseline) with benchmark/compare.js; with budget=0 both run
// upstream's code paths, with budget>0 nodecure times every callback. Needs
// an HTTP benchmarker (autocannon or wrk) on the PATH, as benchmark/http/.
const common = require('../common.js');
const { setEventLoopBudget } = require('./_budget.js');

const bench = common.createBenchmark(main, {
  budget: [0, 1000],
  connections: [100],
  duration: 5,
});

function main({ budget, connections, duration }) {
  setEventLoopBudget(budget);
  const http = require('http');
  const body = 'hello world\n';
  const server = http.createServer((req, res) => {
    res.writeHead(200, {
      'Content-Type': 'text/plain',
      'Content-Length': body.length,
    });
    res.end(body);
  });
  server.listen(0, () => {
    bench.http({
      path: '/',
      connections,
      duration,
      port: server.address().port,
    }, () => {
      server.close();
    });
  });
}
