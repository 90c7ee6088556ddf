/**
 * What a state directory's lock says of its holder (src/common/files/process-identity.ts): parsed from
 * whatever the file holds without throwing, and judged live only when that very process runs.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  goneReason,
  identityText,
  ownIdentity,
  parseIdentity,
} from '../../src/common/files/process-identity.js';

describe('parseIdentity', () => {
  it.each(['', '\n', 'abc', '-5', '0', '1e3', '12abc', '9'.repeat(30), ' \t ', 'NaN 1 x'])(
    'names no process in %j',
    (text) => {
      expect(parseIdentity(text)).toBeUndefined();
    },
  );

  it('reads pid, start time and boot id, and an older lock with the pid alone', () => {
    expect(parseIdentity('42 1234 b-o-o-t\n')).toEqual({ pid: 42, start: '1234', boot: 'b-o-o-t' });
    expect(parseIdentity('42\n')).toEqual({ pid: 42 });
    // A start time that is not a number is not one.
    expect(parseIdentity('42 soon')).toEqual({ pid: 42 });
  });

  it('reads back what it writes', () => {
    const own = ownIdentity();
    expect(parseIdentity(`${identityText(own)}\n`)).toEqual(own);
  });
});

describe.skipIf(!existsSync('/proc/self/stat'))('goneReason (Linux)', () => {
  it('this process, as it records itself, is running', () => {
    expect(goneReason(ownIdentity())).toBeUndefined();
  });

  it('the same pid with another start time or from another boot is not', () => {
    const own = ownIdentity();
    expect(goneReason({ ...own, start: '1' })).toBe('its pid belongs to another process now');
    expect(goneReason({ ...own, boot: 'another-boot' })).toBe('the machine restarted since');
  });

  it('a process that has exited and been reaped is gone', async () => {
    const child = spawn(process.execPath, ['-e', '0']);
    await new Promise((resolve) => child.once('exit', resolve));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(goneReason({ pid: child.pid! })).toBe('it is gone');
  });

  it('a pid alone, of a process that started after the lock was written, is not its holder', () => {
    const { pid } = ownIdentity();
    expect(goneReason({ pid }, Date.now() - 3_600_000 * 24 * 365)).toBe(
      'its pid belongs to another process now',
    );
    expect(goneReason({ pid }, Date.now())).toBeUndefined();
  });
});
