// Flags: --event-loop-timeout=300
'use strict';
// child_process's synchronous calls obey the callback's budget: the child
// is killed (its whole process group when it leads one) and reaped, and
// spawnSync(), execSync() and execFileSync() throw the callback's
// TimeoutError with what the child wrote so far.
const common = require('../common');
if (common.isWindows) common.skip('POSIX shells and process groups');
const assert = require('assert');
const fs = require('fs');
const { execSync, execFileSync, spawnSync } = require('child_process');
const { assertInterrupted, runEachInACallback } = require('../common/cure');

const T = 300;

function assertStoppedChild(err) {
  assert.ok(err instanceof TimeoutError, err);
  assert.strictEqual(err.code, 'ERR_EVENT_LOOP_TIMEOUT');
  assert.match(err.message, /Synchronous spawnSync stopped/);
  assert.strictEqual(err.signal, 'SIGKILL');
  assert.strictEqual(err.status, null);
  assert.ok(Number.isInteger(err.pid) && err.pid > 0, err.pid);
  return true;
}

let groupLeader = 0;

// The processes of group `pgid` that are not zombies, from /proc.
function liveMembersOf(pgid) {
  const live = [];
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let stat;
    try {
      stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue;  // Gone meanwhile.
    }
    // pid (comm) state ppid pgrp ...: comm may contain spaces.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z' && state !== 'X')
      live.push(`${pid} ${state}`);
  }
  return live;
}

// Polls until group `pgid` has no live member, failing after `deadline`.
function waitForDeadGroup(pgid, deadline) {
  const live = liveMembersOf(pgid);
  if (live.length === 0) return;
  assert.ok(Date.now() < deadline, `group ${pgid} still has ${live}`);
  setTimeout(common.mustCall(() => waitForDeadGroup(pgid, deadline)), 20);
}

const cases = [
  () => assertInterrupted('execSync', () => {
    try {
      execSync('echo partial; exec sleep 20');
    } catch (err) {
      assertStoppedChild(err);
      assert.strictEqual(String(err.stdout), 'partial\n');
      throw err;
    }
  }, T),
  () => assertInterrupted('execFileSync', () => {
    try {
      execFileSync('sleep', ['20']);
    } catch (err) {
      assertStoppedChild(err);
      assert.deepStrictEqual(err.spawnargs, ['20']);
      throw err;
    }
  }, T),
  () => assertInterrupted('spawnSync', () => {
    try {
      spawnSync('sh', ['-c', 'sleep 20 & sleep 20; wait'],
                { detached: true, stdio: 'ignore' });
    } catch (err) {
      assertStoppedChild(err);
      groupLeader = err.pid;
      throw err;
    }
  }, T),
  () => {
    // The group dies: its leader and the background sleep (which, once
    // orphaned, may stay a zombie until PID 1 reaps it). Killed members may
    // still be on their way out (state R) for a moment on a loaded machine.
    assert.ok(groupLeader > 0);
    waitForDeadGroup(groupLeader, Date.now() + 10000);
    // A short call's result is unchanged.
    assert.strictEqual(execSync('echo ok', { encoding: 'utf8' }), 'ok\n');
    const r = spawnSync('sh', ['-c', 'exit 3']);
    assert.strictEqual(r.status, 3);
    assert.strictEqual(r.error, undefined);
  },
];

runEachInACallback(cases);
