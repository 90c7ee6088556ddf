/**
 * Starting the mock fails in the same words from `ksctl mock serve` and from the library's
 * `startMock` (usecases/mock.ts): an address is named as an address, and only listen's own
 * EACCES is about the address; a state directory's EACCES names the directory.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InputError, UsageError } from '../../src/common/errors.js';
import { startMock } from '../../src/client/lib/mock.js';
import { MockServer } from '../../src/mock/server/server.js';
import { startMockServer } from '../../src/client/usecases/mock.js';

const errno = (code: string, syscall: string) =>
  Object.assign(new Error(`${syscall} ${code}`), { code, syscall });

afterEach(() => vi.restoreAllMocks());

describe('a mock that cannot start', () => {
  it('names the state directory when a file in it cannot be opened (not "cannot listen")', async () => {
    vi.spyOn(MockServer, 'start').mockRejectedValue(errno('EACCES', 'open'));
    const started = startMockServer({ port: 0, stateDir: '/srv/mock-state' });
    await expect(started).rejects.toBeInstanceOf(InputError);
    await expect(started).rejects.toThrow(
      'cannot use the state directory /srv/mock-state: permission denied',
    );
    // The library says the same.
    await expect(startMock({ state: '/srv/mock-state' })).rejects.toMatchObject({
      code: 'E_INPUT',
      message: 'cannot use the state directory /srv/mock-state: permission denied',
    });
  });

  it('names the address when listen itself is refused', async () => {
    vi.spyOn(MockServer, 'start').mockRejectedValue(errno('EACCES', 'listen'));
    const started = startMockServer({ host: '127.0.0.1', port: 80, stateDir: '/srv/mock-state' });
    await expect(started).rejects.toBeInstanceOf(UsageError);
    await expect(started).rejects.toThrow('cannot listen on 127.0.0.1:80 (EACCES)');
  });

  it('says a port is in use with a hint in the words of each face', async () => {
    vi.spyOn(MockServer, 'start').mockRejectedValue(errno('EADDRINUSE', 'listen'));
    const error = (await startMockServer({ port: 7878 }).catch((e: unknown) => e)) as UsageError;
    expect(error.message).toBe('port 7878 on 127.0.0.1 is already in use');
    expect(error.hint).toBe('pick another with --port, or --port 0 for any free port');
    expect(error.facedHint).toEqual({
      cli: 'pick another with --port, or --port 0 for any free port',
      code: 'pick another port, or port 0 for any free one',
    });
    await expect(startMock({ port: 7878 })).rejects.toMatchObject({
      code: 'E_USAGE',
      hint: 'pick another port, or port 0 for any free one',
    });
  });

  it('passes on an error that is neither the address nor a file as it is', async () => {
    const odd = new Error('something else');
    vi.spyOn(MockServer, 'start').mockRejectedValue(odd);
    await expect(startMockServer({ port: 0 })).rejects.toBe(odd);
  });
});
