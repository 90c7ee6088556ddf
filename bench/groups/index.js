import apply from './apply.js';
import conformance from './conformance.js';
import consoleGroup from './console.js';
import { enrollBulk, enrollOne, enrollRegister } from './enroll.js';
import deviceStall from './device-stall.js';
import hostileInputs from './hostile-inputs.js';
import journalFlood from './journal-flood.js';
import { keys, keysConcurrency, keysRoundTrip } from './keys.js';
import library from './library.js';
import { markingsGet, markingsList } from './markings.js';
import mockHostile from './mock-hostile.js';
import startup from './startup.js';
import state from './state.js';

/**
 * Every benchmark group, in the order `npm run bench` runs them. To add one, write a module like
 * startup.js (name, title, runs, warmups, setup(harness) → { benchmarks, notes }) and list it here.
 */
export const groups = [
  startup,
  markingsList,
  markingsGet,
  apply,
  enrollOne,
  enrollBulk,
  enrollRegister,
  mockHostile,
  journalFlood,
  hostileInputs,
  deviceStall,
  state,
  keysRoundTrip,
  keysConcurrency,
  keys,
  library,
  conformance,
  consoleGroup,
];
