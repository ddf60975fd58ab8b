// Flags: --event-loop-timeout=100
'use strict';
// fs's synchronous calls obey the callback's budget: one that blocks the loop
// thread (a FIFO that nobody opens for writing, a pipe that nobody writes to
// or reads from) is stopped in place (its system call returns EINTR) and
// throws the callback's TimeoutError at the call site; the loop then goes on.
const common = require('../common');
if (common.isWindows) common.skip('FIFOs are POSIX only');
const assert = require('assert');
const fs = require('fs');
const { spawnSync } = require('child_process');
const { assertInterrupted, runEachInACallback } = require('../common/cure');
const tmpdir = require('../common/tmpdir');

const T = 100;
tmpdir.refresh();
const fifo = tmpdir.resolve('fifo');
if (spawnSync('mkfifo', [fifo]).status !== 0) common.skip('no mkfifo');
const fifoModule = tmpdir.resolve('fifo-module.js');
if (spawnSync('mkfifo', [fifoModule]).status !== 0) common.skip('no mkfifo');

// Both ends of the FIFO, opened by the cases that need them (with it open,
// open() of the FIFO no longer blocks): a read waits for data that never
// comes and a big write fills the pipe and waits for a reader.
let rw;

function assertStoppedCall(err, syscall) {
  assert.ok(err instanceof TimeoutError, err);
  assert.strictEqual(err.code, 'ERR_EVENT_LOOP_TIMEOUT');
  assert.match(err.message, new RegExp(`Synchronous ${syscall} stopped`));
  assert.match(err.message, /budget of 100 ms/);
  assert.strictEqual(err.syscall, syscall);
  assert.strictEqual(err.outcome, 'none');
  return true;
}

const cases = [
  // open() of a FIFO without a writer blocks.
  () => assertInterrupted('readFileSync', () => {
    try {
      fs.readFileSync(fifo);
    } catch (err) {
      assertStoppedCall(err, 'open');
      assert.strictEqual(err.path, fifo);
      throw err;
    }
  }, T),
  () => assertInterrupted('readFileSync utf8', () => {
    fs.readFileSync(fifo, 'utf8');
  }, T),
  () => assertInterrupted('openSync', () => {
    try {
      fs.openSync(fifo, 'r');
    } catch (err) {
      assertStoppedCall(err, 'open');
      throw err;
    }
  }, T),
  // copyfile opens its source: the FIFO.
  () => assertInterrupted('copyFileSync', () => {
    try {
      fs.copyFileSync(fifo, tmpdir.resolve('copy'));
    } catch (err) {
      assertStoppedCall(err, 'copyfile');
      throw err;
    }
  }, T),
  // A long copy (16 GiB of holes, written out) stops between its chunks
  // and removes its partial destination.
  () => assertInterrupted('copyFileSync (long)', () => {
    const sparse = tmpdir.resolve('sparse');
    const fd = fs.openSync(sparse, 'w');
    fs.ftruncateSync(fd, 16 * 2 ** 30);
    fs.closeSync(fd);
    try {
      fs.copyFileSync(sparse, tmpdir.resolve('copy'));
    } catch (err) {
      assertStoppedCall(err, 'copyfile');
      assert.strictEqual(fs.existsSync(tmpdir.resolve('copy')), false);
      throw err;
    } finally {
      fs.unlinkSync(sparse);
    }
  }, T),
  // A module that is a FIFO does not hang require().
  () => assertInterrupted('require', () => require(fifoModule), T),
  // read() of an empty pipe blocks.
  () => assertInterrupted('readSync', () => {
    rw = fs.openSync(fifo, fs.constants.O_RDWR);
    try {
      fs.readSync(rw, Buffer.alloc(16));
    } catch (err) {
      assertStoppedCall(err, 'read');
      throw err;
    }
  }, T),
  // A write bigger than the pipe's buffer: what fits is written, the rest
  // waits for a reader that never comes. writeFileSync() is stopped inside
  // its write loop.
  () => assertInterrupted('writeFileSync', () => {
    fs.writeFileSync(rw, Buffer.alloc(16 << 20, 'x'));
  }, T),
  () => {
    // finally blocks run, and the loop thread is the loop's again.
    let finallyRan = false;
    try {
      fs.readSync(rw, Buffer.alloc(16));
    } catch {
      // Expected.
    } finally {
      finallyRan = true;
    }
    assert.ok(finallyRan);
    fs.closeSync(rw);
  },
];

runEachInACallback(cases);
