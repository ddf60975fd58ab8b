'use strict';
// V8's conversions of a string to a number take long runs 8 characters at a
// time (patches/v8/v8-number-conversions-take-long-runs-of-digits-and-white-space-in-stride.patch):
// the digits of fast_float's integer part, its exponent's leading zeros and
// digits past 0x10000000, the zeros it skips before a long mantissa, the
// digits that parseInt() drops past its 309th, and the white space beyond
// Latin-1 that String.prototype.trim() lists, and the digits that cannot
// change a value in a radix other than 10 (past the 53rd bit of a power of
// 2, after an infinite value). 16 Mi characters of such runs took 20 to
// 106 ms a character at a time. The results must be those
// of a character at a time. This test checks them where a stride begins
// and ends (run lengths around 8, 19, 309, 769 and 4096), in one-byte and
// two-byte strings, against identities that a character at a time keeps,
// and the white space against String.prototype.trim(), which V8 implements
// apart (builtins/string-trim.tq).
require('../common');
const assert = require('assert');

const lengths = [];
for (let n = 0; n <= 26; n++) lengths.push(n);
for (const around of [309, 769, 4096]) {
  for (let n = around - 10; n <= around + 10; n++) lengths.push(n);
}
lengths.push(1 << 16, (1 << 16) + 3);

// The same text as a two-byte string: a byte order mark (white space) in
// front.
const forms = [(s) => s, (s) => '\ufeff' + s];

let checked = 0;
function same(actual, expected, what) {
  assert.ok(Object.is(actual, expected),
            `${what}: ${actual} instead of ${expected}`);
  checked++;
}

for (const form of forms) {
  for (const n of lengths) {
    const zeros = '0'.repeat(n);
    const ones = '1'.repeat(n);
    const label = `${n}, ${form('') === '' ? 'one' : 'two'}-byte`;

    // Leading zeros change nothing (fast_float's integer part, and the
    // zeros it skips before a mantissa of more than 19 digits).
    for (const x of ['1', '123.5', '9'.repeat(25), '0.5e3', '1' + ones]) {
      same(Number(form(zeros + x)), Number(x), `zeros + ${x.slice(0, 9)}, ${label}`);
      same(parseFloat(form(zeros + x + 'z')), Number(x),
           `parseFloat(zeros + ${x.slice(0, 9)}), ${label}`);
    }
    same(Number(form('0.' + zeros + '5')), Number('5e-' + (n + 1)),
         `0.zeros5, ${label}`);

    // A run of digits is the number times a power of ten.
    for (const x of ['1', '7', '12345678901234567890123']) {
      same(Number(form(x + zeros)), Number(x + 'e' + n), `${x.slice(0, 9)} + zeros, ${label}`);
      same(Number(form(x + ones)), Number(x + '.' + ones + 'e' + n),
           `${x.slice(0, 9)} + ones, ${label}`);
      if (form('') === '') {
        same(JSON.parse(x + zeros), Number(x + 'e' + n), `JSON ${x.slice(0, 9)} + zeros, ${label}`);
      }
    }

    // The exponent: leading zeros change nothing; past 0x10000000 it only
    // ends the number.
    same(Number(form('1e' + zeros + '5')), 1e5, `exponent zeros, ${label}`);
    same(Number(form('1e-' + zeros + '5')), 1e-5, `negative exponent zeros, ${label}`);
    same(Number(form('5e0' + zeros)), 5, `exponent of zeros, ${label}`);
    same(Number(form('1e' + zeros + '00000300')), 1e300, `exponent 300, ${label}`);
    same(Number(form('2e-' + zeros + '0000030012')), 0, `exponent -30012, ${label}`);
    same(Number(form('2.5E+' + zeros + '00000300')), 2.5e300, `exponent +300, ${label}`);
    same(Number(form('1e' + '9'.repeat(n) + ' ')), n === 0 ? NaN : n < 3 ? Number('1e' + '9'.repeat(n)) : Infinity,
         `exponent of nines, ${label}`);
    same(Number(form('0e' + '9'.repeat(n + 1))), 0, `zero with a long exponent, ${label}`);
    same(Number(form('1e' + '9'.repeat(n) + '5x')), NaN, `junk after the exponent, ${label}`);
    if (form('') === '') {
      same(JSON.parse('1e' + zeros + '5'), 1e5, `JSON exponent zeros, ${label}`);
    }

    // parseInt() keeps 309 digits and only scans the others.
    const big = '1' + zeros;
    same(parseInt(form(big)), n < 309 ? Number(big) : Infinity, `parseInt(1 + zeros), ${label}`);
    same(parseInt(form(big + 'z' + '9'.repeat(20))), parseInt(big), `parseInt ends at junk, ${label}`);
    same(parseInt(form(big + '.9')), parseInt(big), `parseInt ends at the point, ${label}`);
    same(parseInt(form('7' + ones + '8')), n < 308 ? Number('7' + ones + '8') : Infinity,
         `parseInt(7 + ones + 8), ${label}`);

    // Radixes that are powers of 2 round the digits past the 53rd bit, half
    // way to even unless a digit after them is not 0; the others scan the
    // digits after an infinite value.
    const half = '20000000000001';  // 2^53 + 1
    same(parseInt(form(half + zeros), 16), n <= 240 ? 2 ** 53 * 16 ** n : Infinity,
         `hex half way, ${label}`);
    same(parseInt(form(half + zeros + '1'), 16),
         n <= 240 ? (2 ** 53 + 2) * 16 ** (n + 1) : Infinity, `hex past half way, ${label}`);
    same(Number(form('0x' + half + zeros)), n <= 240 ? 2 ** 53 * 16 ** n : Infinity,
         `0x half way, ${label}`);
    same(Number(form('0X' + half + zeros.toUpperCase() + 'F ')),
         n <= 240 ? (2 ** 53 + 2) * 16 ** (n + 1) : Infinity, `0X past half way, ${label}`);
    same(Number(form('0x' + 'f'.repeat(n + 1) + 'g')), NaN, `0x junk, ${label}`);
    same(Number(form('0b' + '1'.repeat(n + 1) + '2')), NaN, `0b junk, ${label}`);
    same(Number(form('0o' + '7'.repeat(n + 1) + '\u3000')), parseInt('7'.repeat(n + 1), 8),
         `0o then white space, ${label}`);
    for (const radix of [3, 35, 36]) {
      const digit = (radix - 1).toString(radix);
      const value = parseInt(digit.repeat(n + 1), radix);
      same(parseInt(form(digit.repeat(n + 1) + '#' + digit), radix), value,
           `radix ${radix}, ${label}`);
      same(parseInt(form(digit.toUpperCase().repeat(n + 1)), radix), value,
           `radix ${radix} upper case, ${label}`);
    }
  }
}

// White space: every code unit that trim() takes for white space is skipped
// around a number, in runs of many lengths, and no other (signs, the point
// and digits read as part of the number).
const bad = [];
for (let c = 0; c < 0x10000; c++) {
  const ch = String.fromCharCode(c);
  if ('+-.0123456789'.includes(ch)) continue;
  const isSpace = ch.trim() === '';
  const expected = isSpace ? 1 : NaN;
  if (!Object.is(Number(ch + '1' + ch), expected) ||
      !Object.is(parseInt(ch + '1'), expected) ||
      !Object.is(parseFloat(ch + '1'), expected)) {
    bad.push(c.toString(16));
  }
}
assert.deepStrictEqual(bad, []);
for (const ch of ['\u1680', '\u2000', '\u2005', '\u200a', '\u2028', '\u2029',
                  '\u202f', '\u205f', '\u3000', '\ufeff', '\u00a0',
                  '\u200b', '\u180e', '\u2060', '\u0085', '\u206f']) {
  const isSpace = ch.trim() === '';
  for (const n of [1, 7, 8, 9, 4097]) {
    const run = ch.repeat(n);
    same(Number(run + '42' + run), isSpace ? 42 : NaN, `Number, U+${ch.charCodeAt(0).toString(16)} x ${n}`);
    same(parseInt(run + '42'), isSpace ? 42 : NaN, `parseInt, U+${ch.charCodeAt(0).toString(16)} x ${n}`);
    let bigint;
    try {
      bigint = BigInt(run + '42' + run);
    } catch {
      bigint = 'SyntaxError';
    }
    same(bigint, isSpace ? 42n : 'SyntaxError', `BigInt, U+${ch.charCodeAt(0).toString(16)} x ${n}`);
  }
}
console.log(`${checked} conversions checked`);
