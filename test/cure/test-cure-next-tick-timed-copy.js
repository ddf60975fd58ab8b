// Flags: --expose-internals
'use strict';
// Once --event-loop-timeout is in use on the thread, each tick of the
// nextTick queue runs in runTimedTick() (lib/internal/process/task_queues.js,
// patches/node/lib-make-each-nexttick-callback-a-callback-of-its-own.patch):
// a copy of the rest of processTicksAndRejections()'s loop body with the
// lines marked `// nodecure` added, so that the loop costs upstream nothing
// per tick until then. This checks that the copy is still upstream's body:
// a rebase that changes the loop upstream fails here until the copy
// follows.
require('../common');
const assert = require('assert');
const { internalBinding } = require('internal/test/binding');

const source = internalBinding('builtins').natives['internal/process/task_queues'];
assert.strictEqual(typeof source, 'string');

// The lines of a function's body, from its declaration to its closing
// brace at the start of a line.
function body(name) {
  const start = source.indexOf(`\nfunction ${name}(`);
  assert.notStrictEqual(start, -1, name);
  const end = source.indexOf('\n}\n', start);
  return source.slice(start + 1, end + 2).split('\n');
}

const dedent = (lines, n) => lines.map((l) => (l.startsWith(' '.repeat(n)) ? l.slice(n) : l));
const withoutOurs = (lines) => lines.filter((l) => !l.includes('// nodecure'));

// Upstream's loop body after the line that hands a tick to runTimedTick().
const loop = body('processTicksAndRejections');
const hand = loop.findIndex((l) => l.includes(
  'FunctionPrototypeCall(runTimedTick, this, tock, priorContextFrame)'));
assert.notStrictEqual(hand, -1, 'processTicksAndRejections() hands ticks over');
const close = loop.indexOf('    }', hand);  // The end of the while loop.
assert.notStrictEqual(close, -1);
const upstream = dedent(loop.slice(hand + 1, close), 4);

// runTimedTick() without its signature, its closing brace and our lines.
const copy = dedent(withoutOurs(body('runTimedTick').slice(1, -1)), 0)
  .map((l) => l.slice(2));

assert.deepStrictEqual(copy, upstream.map((l) => l.slice(2)));

// And ours are there: the callback begins, and its id changes on return.
const ours = body('runTimedTick').filter((l) => l.includes('// nodecure'));
assert.deepStrictEqual(ours.map((l) => l.trim()), [
  'beginCallback();  // nodecure',
  'callbackState.fields[0] = (callbackState.fields[0] + 2) | 1;  // nodecure',
]);
