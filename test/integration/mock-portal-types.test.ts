/**
 * The portal reads a sign-in by its content type (issue 34): a form as a form, JSON as JSON,
 * multipart as multipart; anything else is a 415 naming the types it takes, and a body its type
 * does not describe is a 400, never a sign-in read some other way.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { mockSuite } from '../helpers/mock-suite.js';

const suite = mockSuite();

async function signIn(
  type: string | undefined,
  body: string | Buffer,
): Promise<{ status: number; stoken: string | null; text: string }> {
  const answer = await fetch(`${suite.mock.info.enrollmentUrl}/keyspace/ABcd/register`, {
    method: 'POST',
    headers: type === undefined ? {} : { 'content-type': type },
    body,
  });
  return {
    status: answer.status,
    stoken: answer.headers.get('x-ionic-reg-stoken'),
    text: await answer.text(),
  };
}

function multipart(fields: Record<string, string>, boundary = 'b0undary-x'): Buffer {
  const parts = Object.entries(fields).map(
    ([name, value]) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  );
  return Buffer.from(`${parts.join('')}--${boundary}--\r\n`);
}

describe('the portal reads a sign-in by its content type', () => {
  it('signs in from a form, JSON and multipart alike', async () => {
    const form = await signIn(
      'application/x-www-form-urlencoded',
      'username=alice&password=alice-password',
    );
    const json = await signIn(
      'application/json; charset=utf-8',
      JSON.stringify({ username: 'alice', password: 'alice-password' }),
    );
    const parts = await signIn(
      'multipart/form-data; boundary=b0undary-x',
      multipart({ username: 'alice', password: 'alice-password' }),
    );
    for (const answer of [form, json, parts]) {
      expect(answer.status, answer.text).toBe(200);
      expect(answer.stoken).toMatch(/^I\./);
    }
    // A wrong password is the same 401 in each.
    const wrong = await signIn(
      'multipart/form-data; boundary="b0undary-x"',
      multipart({ username: 'alice', password: 'nope' }),
    );
    expect(wrong.status).toBe(401);
    const email = await signIn('application/json', JSON.stringify({ email: 'alice@example.com' }));
    expect(email.status).toBe(200);
    expect(email.stoken).toBeNull();
  });

  it('refuses any other type with 415, naming the types it takes', async () => {
    for (const type of [
      'text/plain',
      'application/octet-stream',
      'application/xml',
      'multipart/mixed; boundary=x',
      undefined,
    ]) {
      const answer = await signIn(type, 'username=alice&password=alice-password\n');
      expect(answer.status, `${type}`).toBe(415);
      expect(answer.stoken).toBeNull();
      const { error } = JSON.parse(answer.text) as { error: { code: number; message: string } };
      expect(error.code).toBe(41500);
      expect(error.message).toContain(
        'application/x-www-form-urlencoded, application/json, multipart/form-data',
      );
    }
  });

  it('answers a body its type does not describe with 400, never a 500 or a sign-in', async () => {
    const cases: [string, string | Buffer][] = [
      ['application/json', 'username=alice&password=alice-password'],
      ['application/json', '["alice"]'],
      ['application/json', Buffer.from([0x7b, 0xe9, 0x7d])],
      ['multipart/form-data', multipart({ username: 'alice', password: 'alice-password' })],
      ['multipart/form-data; boundary=other', multipart({ username: 'alice' })],
    ];
    // Generated: a multipart body cut, or with random bytes in it, anywhere before its close
    // delimiter. (Past it, the body is still whole: a cut trailing CRLF or noise in the epilogue
    // is a form that signs in, as it should.)
    const whole = multipart({ username: 'alice', password: 'alice-password' });
    const closeAt = whole.indexOf('\r\n--b0undary-x--');
    for (let i = 0; i < 30; i++) {
      const cut = whole.subarray(0, randomInt(0, closeAt));
      cases.push(['multipart/form-data; boundary=b0undary-x', cut]);
      const noisy = Buffer.from(whole);
      noisy.set(randomBytes(4), randomInt(0, closeAt - 3));
      cases.push(['multipart/form-data; boundary=b0undary-x', noisy]);
    }
    for (const [type, body] of cases) {
      const answer = await signIn(type, body);
      expect([400, 401], `${type} ${answer.text}`).toContain(answer.status);
      expect(answer.stoken).toBeNull();
    }
  });
});
