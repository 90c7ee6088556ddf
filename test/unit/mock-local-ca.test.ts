/**
 * Issue 37: the mock's local CA (src/mock/kit/local-ca.ts) over its folder's life: made once, kept,
 * its server certificate made again when the names change, when it nears its end (a
 * certificate openssl issued for one day stands for an old one), when it is damaged or from
 * another CA; a damaged CA is reported, never silently replaced (devices trust it). openssl
 * checks what it made. `--tls-name` takes IP addresses and DNS names and nothing else, whatever
 * is thrown at it.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError, UsageError } from '../../src/common/errors.js';
import {
  certificateNames,
  localCaFiles,
  localTlsIdentity,
  tlsName,
} from '../../src/mock/kit/local-ca.js';
import { prng } from '../helpers/random.js';
import { tempDirs } from '../helpers/temp.js';

const temp = tempDirs();
afterAll(() => temp.removeAll());

const NAMES = certificateNames([]);

function openssl(args: string[]): string {
  return execFileSync('openssl', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

describe('the local CA over its folder’s life', () => {
  it('makes a CA and a certificate once, then reuses both; says what it made', async () => {
    const dir = await temp.make();
    const notes: string[] = [];
    const first = await localTlsIdentity(dir, NAMES, (note) => notes.push(note));
    const files = localCaFiles(dir);
    expect(first.caFile).toBe(files.caFile);
    expect(notes).toEqual([
      expect.stringContaining('made a local CA'),
      expect.stringContaining('made a server certificate for localhost, 127.0.0.1, ::1'),
    ]);
    expect(openssl(['verify', '-CAfile', files.caFile, files.certFile])).toContain(': OK');
    const ca = openssl([
      'x509',
      '-in',
      files.caFile,
      '-noout',
      '-ext',
      'basicConstraints,keyUsage',
    ]);
    expect(ca).toContain('CA:TRUE');
    expect(ca).toContain('Certificate Sign');
    const server = openssl(['x509', '-in', files.certFile, '-noout', '-ext', 'extendedKeyUsage']);
    expect(server).toContain('TLS Web Server Authentication');
    notes.length = 0;
    const again = await localTlsIdentity(dir, NAMES, (note) => notes.push(note));
    expect(again).toEqual(first);
    expect(notes).toEqual([]);
  });

  it('makes a new certificate from the same CA when it nears its end, is damaged or is not the CA’s', async () => {
    const dir = await temp.make();
    const files = localCaFiles(dir);
    await localTlsIdentity(dir, NAMES);
    const ca = await readFile(files.caFile, 'utf8');
    // openssl issues, with the CA's own key, a certificate for the same names valid one day.
    const csr = join(dir, 'short.csr');
    const ext = join(dir, 'short.ext');
    writeFileSync(ext, 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\n');
    openssl(['req', '-new', '-key', files.keyFile, '-out', csr, '-subj', '/CN=localhost']);
    openssl(
      ['x509', '-req', '-in', csr, '-CA', files.caFile, '-CAkey', files.caKeyFile].concat([
        '-CAcreateserial',
        '-out',
        files.certFile,
        '-days',
        '1',
        '-extfile',
        ext,
      ]),
    );
    const short = await readFile(files.certFile, 'utf8');
    await localTlsIdentity(dir, NAMES);
    const renewed = await readFile(files.certFile, 'utf8');
    expect(renewed).not.toBe(short);
    expect(
      openssl(['x509', '-in', files.certFile, '-noout', '-checkend', String(300 * 86_400)]),
    ).toContain('will not expire');
    for (const damage of ['not a certificate', await readFile(files.caFile, 'utf8')]) {
      // Garbage, then the CA's own certificate in the server's place: neither is served.
      await writeFile(files.certFile, damage);
      const identity = await localTlsIdentity(dir, NAMES);
      expect(identity.cert).not.toBe(damage);
      expect(openssl(['verify', '-CAfile', files.caFile, files.certFile])).toContain(': OK');
    }
    expect(await readFile(files.caFile, 'utf8')).toBe(ca);
  });

  it('a damaged or half CA is an error that names the folder, and is left as it is', async () => {
    const dir = await temp.make();
    const files = localCaFiles(dir);
    await localTlsIdentity(dir, NAMES);
    await writeFile(
      files.caKeyFile,
      '-----BEGIN PRIVATE KEY-----\nbroken\n-----END PRIVATE KEY-----\n',
    );
    const damaged = await localTlsIdentity(dir, NAMES).catch((e: unknown) => e);
    expect(damaged).toBeInstanceOf(InputError);
    expect((damaged as Error).message).toContain('cannot be used');
    expect(await readFile(files.caKeyFile, 'utf8')).toContain('broken');
    const half = await temp.make();
    await localTlsIdentity(half, NAMES);
    await rm(localCaFiles(half).caKeyFile);
    const incomplete = await localTlsIdentity(half, NAMES).catch((e: unknown) => e);
    expect((incomplete as Error).message).toContain('incomplete');
  });
});

describe('--tls-name', () => {
  it('takes IP addresses and DNS names, in one spelling', () => {
    expect(tlsName('192.168.1.20')).toBe('192.168.1.20');
    expect(tlsName('[fe80::1]')).toBe('fe80::1');
    expect(tlsName('Desk.Example.')).toBe('desk.example');
    expect(tlsName('*.lan.example')).toBe('*.lan.example');
    expect(certificateNames(['localhost', '10.0.2.2', '10.0.2.2'])).toEqual([
      'localhost',
      '127.0.0.1',
      '::1',
      '10.0.2.2',
    ]);
  });

  it('refuses anything else with a usage error, never a crash (generated names)', () => {
    const random = prng(37);
    const alphabet = 'ab-._*:/[] \u00e9\u0000@%1';
    for (let i = 0; i < 500; i++) {
      const length = 1 + random.int(20);
      let text = '';
      for (let j = 0; j < length; j++) text += random.pick([...alphabet]);
      try {
        const name = tlsName(text);
        // What is taken is a plain name or address.
        expect(name).toMatch(/^(\*\.)?[a-z0-9.:-]+$/);
      } catch (error) {
        expect(error, JSON.stringify(text)).toBeInstanceOf(UsageError);
      }
    }
    for (const bad of [
      '',
      'a..b',
      '-a.example',
      'a_b.example',
      'x'.repeat(64),
      '1.2.3.4:80',
      'a b',
    ]) {
      expect(() => tlsName(bad), bad).toThrow(UsageError);
    }
  });
});
