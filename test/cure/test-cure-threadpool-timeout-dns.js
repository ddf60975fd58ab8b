'use strict';
// dns.lookup() and dns.lookupService() against a resolver that never answers
// (a tarpit): each gets a TimeoutError after its 100 ms budget, while the
// C library's getaddrinfo()/getnameinfo() would wait for its own retries.
// The pool recovers at once: a legitimate lookup from /etc/hosts and a small
// fs.readFile() issued during the attack both succeed.
//
// The tarpit is private to the test: the child runs in its own user, mount
// and network namespaces (unshare), where /etc/resolv.conf is a bind mount
// of a file that names 127.0.0.1 and the child itself listens on UDP port 53
// of its own loopback and drops every query.
const common = require('../common');
if (!common.isLinux) common.skip('needs Linux namespaces');
const assert = require('assert');
const fs = require('fs');
const { spawnSync } = require('child_process');

if (process.argv[2] === 'child') {
  child();
} else {
  parent();
}

function parent() {
  const tmpdir = require('../common/tmpdir');
  tmpdir.refresh();
  const resolvConf = tmpdir.resolve('resolv.conf');
  // Long per-try timeouts: without the budget each lookup would wait 60 s.
  fs.writeFileSync(resolvConf,
                   'nameserver 127.0.0.1\noptions timeout:30 attempts:2\n');
  const probe = spawnSync('unshare', ['-rmn', 'true']);
  if (probe.error || probe.status !== 0) {
    common.skip('cannot create user, mount and network namespaces');
  }
  const script = 'ip link set lo up && mount --bind "$1" /etc/resolv.conf' +
                 ' && exec "$2" --threadpool-timeout=100 "$3" child';
  const r = spawnSync('unshare', [
    '-rmn', 'sh', '-c', script, 'sh', resolvConf, process.execPath, __filename,
  ], { encoding: 'utf8' });
  if (r.status !== 0 && /ip: not found|mount: /.test(r.stderr)) {
    common.skip(`namespace setup failed: ${r.stderr.trim()}`);
  }
  assert.strictEqual(r.status, 0, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  assert.match(r.stdout, /^queries [1-9]/m);
}

function child() {
  const dgram = require('dgram');
  const dns = require('dns');
  const cure = require('node:cure');

  let queries = 0;
  const tarpit = dgram.createSocket('udp4');
  tarpit.on('message', () => queries++);  // Never answered.

  function assertTimeout(err, syscall) {
    assert.ok(err instanceof TimeoutError, err);
    assert.strictEqual(err.name, 'TimeoutError');
    assert.strictEqual(err.code, 'ERR_THREADPOOL_TIMEOUT');
    assert.strictEqual(err.syscall, syscall);
    return true;
  }

  tarpit.bind(53, '127.0.0.1', common.mustCall(async () => {
    const start = process.hrtime.bigint();
    const elapsedMs = () => Number(process.hrtime.bigint() - start) / 1e6;

    const lookup = new Promise((resolve) => {
      dns.lookup('tarpit.nodecure.invalid', common.mustCall((err, address) => {
        assertTimeout(err, 'getaddrinfo');
        assert.strictEqual(err.hostname, 'tarpit.nodecure.invalid');
        assert.strictEqual(address, undefined);
        assert.ok(elapsedMs() >= 100, `${elapsedMs()} ms`);
        resolve();
      }));
    });
    const lookupPromise = assert.rejects(
      dns.promises.lookup('tarpit2.nodecure.invalid'),
      (err) => assertTimeout(err, 'getaddrinfo') &&
               err.hostname === 'tarpit2.nodecure.invalid');
    // 127.0.0.2 is not in /etc/hosts: its name is asked for (PTR) over DNS.
    const lookupService = new Promise((resolve) => {
      dns.lookupService('127.0.0.2', 22, common.mustCall((err) => {
        assertTimeout(err, 'getnameinfo');
        resolve();
      }));
    });

    // Legitimate requests issued during the attack are served.
    const legit = Promise.all([
      fs.promises.readFile(__filename, 'latin1'),
      dns.promises.lookup('localhost'),
    ]);

    const [source, local] = await legit;
    assert.match(source, /tarpit/);
    assert.ok(local.address === '127.0.0.1' || local.address === '::1',
              local.address);
    await Promise.all([lookup, lookupPromise, lookupService]);

    const counts = cure.getTimeoutCounts();
    assert.ok(counts.threadpool >= 3, `threadpool: ${counts.threadpool}`);
    const stats = cure.getThreadpoolStats();
    assert.ok(stats.timedOut >= 3, `timedOut: ${stats.timedOut}`);
    assert.ok(queries >= 1);
    console.log(`queries ${queries}`);
    tarpit.close();
  }));
}
