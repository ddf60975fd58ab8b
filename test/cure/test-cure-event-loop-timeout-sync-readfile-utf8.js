// Flags: --event-loop-timeout=60000
'use strict';
// fs.readFileSync(path, 'utf8') reads the file in sections that a timeout
// stops, then decoded it whole in one call (the fs binding's readFileUtf8):
// V8's decoder takes about 14 ms a MiB of invalid UTF-8, so a file that a
// request uploaded ran past the budget by hundreds of milliseconds, with
// nothing asking for it. A file of more than 1 MiB is now decoded in slices
// that a timeout stops between (src/node_string_bytes_slices.h,
// patches/node/src-readfilesync-s-utf-8-decoding-is-stopped-between-slices.patch).
// The error's message ("Synchronous fs.readFileSync stopped") is made only
// where the slices stop, so it shows the stop came inside the decoding, not
// in a read (whose error has a syscall) or from V8 after the call. Within a
// budget the strings are those of a run without the option, for sizes
// around the slices' ends and sequences cut there.
require('../common');
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const tmpdir = require('../common/tmpdir');
const { runWithEventLoopTimeout } = require('node:cure');
const {
  assertSyncCallStopped, printWithoutOptions, runEachInACallback,
} = require('../common/cure');

tmpdir.refresh();

// 48 MiB of invalid UTF-8 (lone continuation bytes and truncated
// sequences): a few hundred milliseconds of decoding.
const invalid = path.join(tmpdir.path, 'invalid.txt');
const bytes = Buffer.alloc(48 * 2 ** 20);
for (let i = 0; i < bytes.length; i++) bytes[i] = i % 3 === 0 ? 0xe2 : 0x80 + (i % 61);
fs.writeFileSync(invalid, bytes);

// Files whose decoding the slices must not change: sizes around 1 MiB
// (kDecodeUtf8SliceBytes) and its multiples, with multi-byte sequences,
// complete and cut, across the slices' ends.
const MiB = 2 ** 20;
const sequences = ['a', '\u00e9', '\u20ac', '\u{1f600}'];
const files = [];
let n = 0;
for (const size of [MiB - 1, MiB, MiB + 1, MiB + 3, 2 * MiB + 2, 3 * MiB + 7]) {
  for (const seq of sequences) {
    const unit = Buffer.from(seq);
    const data = Buffer.alloc(size);
    for (let i = 0; i < size; i += unit.length) unit.copy(data, i);
    // A sequence cut near the end of each slice.
    for (let at = MiB - 2; at < size; at += MiB) data[at] = 0xf0;
    const file = path.join(tmpdir.path, `f${n++}.txt`);
    fs.writeFileSync(file, data);
    files.push(file);
  }
}
const digests = `(() => {
  const { createHash } = require('crypto');
  const fs = require('fs');
  return ${JSON.stringify(files)}.map((file) => {
    const s = fs.readFileSync(file, 'utf8');
    return s.length + ':' + createHash('sha256').update(s).digest('hex').slice(0, 16);
  }).join(' ');
})()`;
const withoutOption = printWithoutOptions(digests);

runEachInACallback([
  () => assertSyncCallStopped('readFileSync of 48 MiB of invalid UTF-8',
                              'fs.readFileSync',
                              () => fs.readFileSync(invalid, 'utf8'), 100),
  () => {
    // Within a budget (a generous one), the strings are those without the
    // option.
    assert.strictEqual(runWithEventLoopTimeout(60_000, () => eval(digests)),
                       withoutOption);
  },
  () => {
    // And whole: the slices of the large file too.
    const s = runWithEventLoopTimeout(60_000, () => fs.readFileSync(invalid, 'utf8'));
    assert.strictEqual(s, bytes.toString('utf8'));
  },
]);
