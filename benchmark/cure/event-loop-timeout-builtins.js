'use strict';
// The cost of the interrupt polls in long builtins when no timeout fires.
// With budget>0 nodecure installs its V8 delegate, and TypedArray sort and
// the string searches take their polling paths (an interruptible sort,
// searches in chunks); with budget=0 they run upstream's code. The
// arraylike-* cases are the generic paths of the Array methods on an
// array-like of 2^16 elements, which poll with or without a budget. The
// bigint-* cases multiply and divide operands of 64 and of 1500 digits of
// 64 bits: above 1024, nodecure takes V8's runtime (interruptible) instead
// of the builtins' direct call of the same library. Compare
// ./node against ./node-baseline (make baseline) with benchmark/compare.js.
const common = require('../common.js');
const { setEventLoopBudget, timeInACallback } = require('./_budget.js');

const bench = common.createBenchmark(main, {
  op: ['typedarray-sort', 'indexOf', 'lastIndexOf', 'split', 'replace',
       'replace-64k', 'replace-flat', 'arraylike-forEach',
       'arraylike-reverse', 'arraylike-from', 'arraylike-concat',
       'arraylike-uint8array', 'bigint-64', 'bigint-1500'],
  budget: [0, 60000],
  n: [20],
});

// A pseudo-random sequence (a linear congruential generator).
function lcg() {
  let x = 12345;
  return () => {
    x = (x * 1103515245 + 12345) & 0x3fffffff;
    return x;
  };
}

// An object (not an Array) with 2^16 elements and a length.
function arrayLike() {
  const o = { length: 2 ** 16 };
  for (let i = 0; i < o.length; i++) o[i] = i & 0xff;
  return o;
}

function setUp(op) {
  switch (op) {
    case 'typedarray-sort': {
      const input = Float64Array.from({ length: 2 ** 20 }, lcg());
      const work = new Float64Array(input.length);
      return () => {
        work.set(input);
        return work.sort()[0];
      };
    }
    case 'indexOf': {
      const s = 'a'.repeat(2 ** 22) + 'aaaaab';
      return () => s.indexOf('aaaaab');
    }
    case 'lastIndexOf': {
      const s = 'b' + 'a'.repeat(2 ** 16);
      const p = 'b' + 'a'.repeat(2 ** 6);
      return () => s.lastIndexOf(p);
    }
    case 'split': {
      const s = 'ab,'.repeat(2 ** 18);
      return () => s.split(',').length;
    }
    // A global atom replace of more than 65536 characters takes V8's runtime
    // path in nodecure (it polls); below that, and in upstream, the Torque
    // loop, which builds a rope. replace-flat reads the result, which makes
    // the rope flat.
    case 'replace': {
      const s = 'ab,'.repeat(2 ** 18);
      return () => s.replace(/,/g, ';').length;
    }
    case 'replace-64k': {
      const s = 'ab,'.repeat(21845);  // 65535 characters
      return () => {
        let length = 0;
        for (let i = 0; i < 12; i++) length += s.replace(/,/g, ';').length;
        return length;
      };
    }
    case 'arraylike-forEach': {
      const o = arrayLike();
      return () => {
        let sum = 0;
        Array.prototype.forEach.call(o, (v) => { sum += v; });
        return sum;
      };
    }
    case 'arraylike-reverse': {
      const o = arrayLike();
      return () => Array.prototype.reverse.call(o)[0];
    }
    case 'arraylike-from': {
      const o = arrayLike();
      return () => Array.from(o).length;
    }
    case 'arraylike-concat': {
      const o = arrayLike();
      o[Symbol.isConcatSpreadable] = true;
      return () => [].concat(o).length;
    }
    case 'arraylike-uint8array': {
      const o = arrayLike();
      return () => new Uint8Array(o)[1];
    }
    case 'bigint-64':
    case 'bigint-1500': {
      const digits = op === 'bigint-64' ? 64 : 1500;
      const a = (1n << BigInt(64 * digits)) / 3n;
      const b = (1n << BigInt(64 * digits - 100)) / 7n;
      const reps = op === 'bigint-64' ? 2000 : 20;
      return () => {
        let r = 0n;
        for (let i = 0; i < reps; i++) r += (a * b) / b + (a * b) % a;
        return Number(r & 1n);
      };
    }
    case 'replace-flat': {
      const s = 'ab,'.repeat(2 ** 18);
      return () => s.replace(/,/g, ';').charCodeAt(1);
    }
  }
}

function main({ op, budget, n }) {
  setEventLoopBudget(budget);
  timeInACallback(bench, n, setUp(op));
}
