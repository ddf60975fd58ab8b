// Flags: --event-loop-timeout=100
'use strict';
// The keys of a dictionary-mode object are collected by a walk of its
// entries and a sort by creation order, in C++: with millions of keys they
// take seconds. They poll for a pending timeout, so that a callback that
// spends its budget in Object.keys(), for-in, Object.getOwnPropertyNames(),
// Reflect.ownKeys(), Object.values() or Object.entries() gets a catchable
// TimeoutError there.
require('../common');
const { assertInterrupted, runEachInACallback } = require('../common/cure');

const T = 100;

// Built while the main module runs (not bounded): 3e6 keys, dictionary mode.
const dict = {};
for (let i = 0; i < 3e6; i++) dict['k' + i] = i;
delete dict.k0;
console.log('built');  // Loads what console.log needs outside the budget.

const cases = [
  () => assertInterrupted('Object.keys', () => Object.keys(dict), T),
  () => assertInterrupted('for-in', () => {
    let n = 0;
    for (const key in dict) n += key.length;
    return n;
  }, T),
  () => assertInterrupted('Object.getOwnPropertyNames',
                          () => Object.getOwnPropertyNames(dict), T),
  () => assertInterrupted('Reflect.ownKeys', () => Reflect.ownKeys(dict), T),
  () => assertInterrupted('Object.values', () => Object.values(dict), T),
  () => assertInterrupted('Object.entries', () => Object.entries(dict), T),
];

runEachInACallback(cases);
