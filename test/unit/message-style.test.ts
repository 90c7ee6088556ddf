/** What ksctl says on stderr starts lower-case and has no final full stop. */
import { describe, expect, it } from 'vitest';
import { errorFromAnswer } from '../../src/client/api/errors.js';
import {
  ENROLLMENT_CAUSES,
  enrollmentErrorFromAnswer,
} from '../../src/common/enrollment/causes.js';
import { fileError } from '../../src/common/files/fs-errors.js';
import { refuseToReplace } from '../../src/common/files/replace-guard.js';
import { InputError, type KsctlError } from '../../src/common/errors.js';
import { formatError } from '../../src/client/output/errors.js';

/** Lower-case first letter (an upper-case word such as STOKEN may start it), no final full stop. */
function expectStyle(text: string | undefined): void {
  expect(text).toBeDefined();
  expect(text).toMatch(/^([a-z0-9"`-]|[A-Z][A-Z0-9_-]+\b)/);
  expect(text).not.toMatch(/\.$/);
}

describe('message style of the typed errors', () => {
  it('every enrollment cause: message and hint', () => {
    for (const cause of ENROLLMENT_CAUSES) {
      const error = enrollmentErrorFromAnswer(cause.status, { error: { code: cause.code } });
      expectStyle(error.message);
      expectStyle(error.hint);
    }
    expectStyle(enrollmentErrorFromAnswer(502, { error: { message: 'Bad gateway.' } }).message);
  });

  it('HTTP error answers and file errors', async () => {
    for (const status of [400, 401, 403, 404, 409, 412, 413, 415, 429, 500, 503]) {
      const error = errorFromAnswer(status, undefined, 'cid', 'list markings');
      expectStyle(error.message);
      if (error.hint !== undefined) expectStyle(error.hint);
    }
    const enoent = Object.assign(new Error('ENOENT: no such file'), { code: 'ENOENT' });
    expectStyle(fileError('read', 'x.yaml', enoent).message);
    expect(fileError('read', 'x.yaml', enoent).message).not.toContain('ENOENT');
    const refused = (await refuseToReplace('package.json', false).catch(
      (e: unknown) => e,
    )) as Error;
    expectStyle(refused.message);
  });
});

describe('message style of what commands say themselves', () => {
  it('a destructive question off a terminal: the error begins in lower case like the rest', async () => {
    const { PassThrough } = await import('node:stream');
    const { CommandContext } = await import('../../src/client/cli/kit/command-context.js');
    const io = {
      stdin: new PassThrough(),
      stdout: new PassThrough(),
      stderr: new PassThrough(),
      stdinIsTTY: false,
      stdoutIsTTY: false,
      stderrIsTTY: false,
      color: false,
      columns: 80,
    };
    const ctx = new CommandContext(
      io,
      {},
      { confirm: async () => false, input: async () => '', secret: async () => '' },
      new AbortController().signal,
    );
    const refused = (await ctx
      .confirm('Delete marking "region" and its 3 values?', false)
      .catch((e: unknown) => e)) as KsctlError;
    expectStyle(refused.message);
    expect(refused.message).toBe('delete marking "region" and its 3 values: confirmation needed');
    expectStyle(refused.hint);
  });
});

describe('message style of hints', () => {
  it('hints start in lower case, whoever wrote them', () => {
    const text = formatError(new InputError('bad', { hint: 'Check the file' }), false);
    expect(text).toBe('error: bad\nhint: check the file\n');
    const acronym = formatError(new InputError('bad', { hint: 'URL first' }), false);
    expect(acronym).toContain('hint: URL first');
  });
});
