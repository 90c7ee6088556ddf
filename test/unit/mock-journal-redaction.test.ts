/**
 * The journal's one redaction (src/mock/journal/redaction.ts) on generated bodies: each
 * known secret, in each encoding, at random places among random bytes, and across the 64 KiB
 * cut, is found; the bytes around it are left as they were.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { setImmediate as turn } from 'node:timers/promises';
import type { RecordedRequest } from '../../src/mock/journal/entry.js';
import { Journal, JOURNAL_BODY_KEPT_BYTES } from '../../src/mock/journal/request-journal.js';
import { JournalSecrets } from '../../src/mock/journal/redaction.js';

const secretText = () => `pw-${randomBytes(randomInt(4, 40)).toString('base64url')}`;

/** Random bytes without the ASCII that could make a form or JSON of them. */
const noise = (n: number) =>
  Buffer.from(Array.from(randomBytes(n), (b) => (b < 0x80 ? 0x80 | b : b))).toString('latin1');

describe('JournalSecrets.scrub', () => {
  it('finds every known secret in each of its forms among random bytes', () => {
    for (let round = 0; round < 50; round++) {
      const secrets = new JournalSecrets();
      const texts = Array.from({ length: randomInt(1, 30) }, secretText);
      const key = randomBytes(32);
      for (const text of texts) secrets.add(text);
      secrets.add(key);
      const planted = [
        ...texts.map((t) => Buffer.from(t).toString('latin1')),
        ...texts.map((t) => Buffer.from(t).toString('hex')),
        key.toString('hex'),
        key.toString('base64'),
        key.toString('latin1'),
      ];
      let body = '';
      for (const form of planted) body += noise(randomInt(0, 50)) + form;
      body += noise(randomInt(0, 50));
      const out = secrets.scrub(body);
      for (const form of planted) expect(out.includes(form)).toBe(false);
      expect(out.split('[redacted]').length - 1).toBe(planted.length);
    }
  });

  it('leaves a body without secrets as it was', () => {
    const secrets = new JournalSecrets();
    for (let i = 0; i < 1000; i++) secrets.add(secretText());
    const body = noise(100_000);
    expect(secrets.scrub(body)).toBe(body);
  });
});

describe('the journal records redacted', () => {
  it('finds a secret the 64 KiB cut splits, and keeps at most 64 KiB', () => {
    const journal = new Journal();
    const secret = secretText();
    journal.secrets.add(secret);
    for (const at of [JOURNAL_BODY_KEPT_BYTES - 3, JOURNAL_BODY_KEPT_BYTES - secret.length + 1]) {
      const body = Buffer.concat([
        Buffer.alloc(at, 'a'),
        Buffer.from(secret),
        Buffer.alloc(1000, 'b'),
      ]);
      const entry = journal.record({
        time: '2026-12-07T00:00:00.000Z',
        method: 'POST',
        path: '/v2/dev/markings',
        status: 201,
        cid: 'c',
        durationMs: 1,
        requestBytes: body.length,
        responseBytes: 0,
        requestHeaders: { 'content-type': 'text/plain' },
        responseHeaders: {},
        requestBody: body,
        responseBody: [],
      });
      const kept = journal.get(entry.id)!.request;
      expect(kept.truncated).toBe(true);
      expect(Buffer.byteLength(kept.body)).toBeLessThanOrEqual(JOURNAL_BODY_KEPT_BYTES);
      // Where the secret began, the mark; no part of the secret is left before the cut.
      expect(kept.body.slice(at)).toBe(
        `[redacted]${'b'.repeat(1000)}`.slice(0, JOURNAL_BODY_KEPT_BYTES - at),
      );
    }
  });

  /** A markings update of `kib` KiB whose body and answer both hold the secret. */
  const exchange = (secret: string, kib: number): RecordedRequest => {
    const body = Buffer.from(
      JSON.stringify({ name: 'm', note: secret, pad: 'v'.repeat(kib * 1024) }),
      'utf8',
    );
    return {
      time: '2026-12-07T00:00:00.000Z',
      method: 'PUT',
      path: '/v2/dev/markings/1',
      status: 200,
      cid: 'c',
      durationMs: 1,
      requestBytes: body.length,
      responseBytes: body.length,
      requestHeaders: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
      responseHeaders: { 'content-type': 'application/json' },
      requestBody: body,
      responseBody: [body],
    };
  };

  it('redacts after the answer, in turns of its own, and at once what is read first', async () => {
    const journal = new Journal();
    const secret = secretText();
    journal.secrets.add(secret);
    const scrub = journal.secrets.scrub.bind(journal.secrets);
    let scrubbed = 0;
    journal.secrets.scrub = (bytes) => {
      scrubbed++;
      return scrub(bytes);
    };
    // Recording takes copies only: none of the redaction runs in the turn that answered.
    const ids = Array.from({ length: 20 }, () => journal.record(exchange(secret, 100)).id);
    expect(scrubbed).toBe(0);
    // Read first, the last one is redacted then, its neighbours still wait.
    const last = journal.get(ids.at(-1)!)!;
    expect(JSON.stringify(last)).not.toContain(secret);
    expect(last.request.headers.authorization).toBe('Bearer [redacted]');
    expect(last.request.body).toContain('"note":"[redacted]"');
    // One exchange's headers and bodies: the others were not touched.
    const each = scrubbed;
    expect(each).toBeGreaterThan(0);
    // The rest is redacted in the turns that follow, without anything reading it.
    for (let i = 0; i < 100 && scrubbed < 20 * each; i++) await turn();
    expect(scrubbed).toBe(20 * each);
    const { requests } = journal.list({ bodies: true });
    expect(requests).toHaveLength(20);
    expect(JSON.stringify(requests)).not.toContain(secret);
    // Nothing was redacted twice.
    expect(scrubbed).toBe(20 * each);
  });

  it('hides a secret the mock learns after recording but before the redaction', () => {
    const journal = new Journal();
    const secret = secretText();
    const id = journal.record(exchange(secret, 1)).id;
    journal.secrets.add(secret);
    expect(JSON.stringify(journal.get(id))).not.toContain(secret);
  });

  it('forgets what waits when cleared, and goes on redacting what comes after', async () => {
    const journal = new Journal();
    const secret = secretText();
    journal.secrets.add(secret);
    for (let i = 0; i < 10; i++) journal.record(exchange(secret, 100));
    journal.clear();
    expect(journal.list({ bodies: true }).requests).toEqual([]);
    const id = journal.record(exchange(secret, 100)).id;
    await turn();
    const kept = journal.get(id)!;
    expect(kept.request.body).toContain('"note":"[redacted]"');
    expect(kept.response.body).toContain('"note":"[redacted]"');
  });
});
