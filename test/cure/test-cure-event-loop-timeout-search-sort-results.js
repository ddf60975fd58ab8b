// Flags: --event-loop-timeout=60000
'use strict';
// With --event-loop-timeout set, TypedArray.prototype.sort, the string
// searches and the key collection of dictionary-mode objects take their
// polling paths (an interruptible sort; searches in chunks of 2^20
// characters). Their results must be exactly upstream's: matches that
// straddle a chunk boundary, sorts of every element type with NaN and -0,
// splits and replacements across chunks, keys in creation order.
require('../common');
const { lcg } = require('../common/cure');
const assert = require('assert');

const kChunk = 2 ** 20;

// Matches across the first chunk boundary, for each kind of search strategy
// (one character, linear, Boyer-Moore-Horspool) and both representations.
for (const needle of ['#', 'needle', 'a needle of more than seven chars',
                      '\u2603needle', '\u2603']) {
  for (const fill of ['x', '\u00e9', '\u0100']) {
    for (const at of [kChunk - needle.length, kChunk - 1, kChunk, 2 * kChunk]) {
      const s = fill.repeat(at) + needle + fill.repeat(100);
      assert.strictEqual(s.indexOf(needle), at);
      assert.strictEqual(s.indexOf(needle, 1), at);
      assert.strictEqual(s.indexOf(needle, at + 1), -1);
      assert.strictEqual(s.includes(needle), true);
      assert.strictEqual(s.lastIndexOf(needle), at);
      assert.deepStrictEqual(s.split(needle).map((p) => p.length),
                             [at, 100]);
      const replaced = s.replace(new RegExp(needle, 'g'), '|');
      assert.strictEqual(replaced.length, at + 1 + 100);
      assert.strictEqual(replaced.indexOf('|'), at);
    }
  }
}
assert.strictEqual('x'.repeat(3 * kChunk).indexOf('y'), -1);
// lastIndexOf() polls after so many compared characters too: partial
// matches at every index.
assert.strictEqual(('aaab' + 'a'.repeat(2 ** 18)).lastIndexOf('aaab'), 0);
assert.strictEqual(('b' + 'a'.repeat(2 ** 18)).lastIndexOf('aaab'), -1);
assert.strictEqual(('aaab' + 'a'.repeat(2 ** 18)).lastIndexOf('aaab', 2 ** 17),
                   0);
assert.strictEqual('xy'.repeat(kChunk).split('y').length, kChunk + 1);
assert.strictEqual('xy'.repeat(kChunk).replace(/y/g, '').length, kChunk);

// Sorts: every element type, sizes around the sort's runs (2^12), with the
// values a numeric sort must order (NaN last, -0 before +0).
function reference(values) {
  return Array.from(values).sort((a, b) => {
    if (Number.isNaN(a)) return Number.isNaN(b) ? 0 : 1;
    if (Number.isNaN(b)) return -1;
    if (a < b) return -1;
    if (a > b) return 1;
    if (Object.is(a, -0) && Object.is(b, 0)) return -1;
    if (Object.is(a, 0) && Object.is(b, -0)) return 1;
    return 0;
  });
}
const types = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array,
               Uint16Array, Int32Array, Uint32Array, Float32Array,
               Float64Array, BigInt64Array, BigUint64Array];
for (const Type of types) {
  for (const length of [2, 4096, 4097, 65537, 300001]) {
    const next = lcg(987654321);
    const isBig = Type.name.startsWith('Big');
    const isFloat = Type.name.startsWith('Float');
    const ta = new Type(length);
    for (let i = 0; i < length; i++) {
      const r = next();
      if (isBig) {
        ta[i] = BigInt(r) * 1000003n - 2n ** 40n;
      } else if (isFloat) {
        ta[i] = r % 97 === 0 ? NaN : r % 89 === 0 ? -0 : r % 83 === 0 ? 0 :
          (r - 2 ** 29) / 7;
      } else {
        ta[i] = r - 2 ** 29;
      }
    }
    const expected = isBig ?
      Array.from(ta).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)) :
      reference(ta);
    ta.sort();
    const actual = Array.from(ta);
    for (let i = 0; i < length; i++) {
      if (!Object.is(actual[i], expected[i])) {
        assert.fail(`${Type.name}(${length})[${i}]: ${actual[i]} !== ` +
                    `${expected[i]}`);
      }
    }
  }
}
// Sorted, reversed and constant inputs (quicksort's bad cases).
for (const make of [(i) => i, (i) => -i, () => 7, (i) => i % 3]) {
  const ta = Int32Array.from({ length: 200003 }, (_, i) => make(i));
  ta.sort();
  for (let i = 1; i < ta.length; i++) assert.ok(ta[i - 1] <= ta[i]);
}

// Keys of dictionary-mode objects, in creation order (integer-like keys
// first, ascending), by every way of collecting them.
for (const size of [100, 5000, 100003]) {
  const dict = {};
  const expected = [];
  for (let i = 0; i < size; i++) {
    const key = `key${(i * 7919) % size}`;
    dict[key] = i;
    expected.push(key);
  }
  for (let i = 0; i < size; i += 3) delete dict[expected[i]];
  const kept = expected.filter((_, i) => i % 3 !== 0);
  dict[7] = 'seven';
  dict[3] = 'three';
  Object.defineProperty(dict, 'hidden', { value: 1, enumerable: false });
  const symbol = Symbol('s');
  dict[symbol] = 's';
  const enumerable = ['3', '7', ...kept];
  assert.deepStrictEqual(Object.keys(dict), enumerable);
  const forIn = [];
  for (const key in dict) forIn.push(key);
  assert.deepStrictEqual(forIn, enumerable);
  assert.deepStrictEqual(Object.getOwnPropertyNames(dict),
                         [...enumerable, 'hidden']);
  assert.deepStrictEqual(Reflect.ownKeys(dict),
                         [...enumerable, 'hidden', symbol]);
  assert.deepStrictEqual(Object.values(dict),
                         ['three', 'seven', ...kept.map((k) => dict[k])]);
}
