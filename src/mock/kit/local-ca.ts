/**
 * The mock's local certificate authority, for `ksctl mock serve --tls`: apps that insist on HTTPS
 * (iOS, Android 9+, browsers, configurations that pin `https://`) reach the mock once its CA is
 * trusted, as `vault server -dev-tls` does it.
 *
 * The first run makes a CA in the configuration folder (its key never leaves it, mode 0600) and a
 * server certificate for the loopback names and the names asked for; later runs reuse the CA and
 * make a new server certificate when the names change, when it nears its end, or when it was not
 * issued by the CA in the folder. node-forge makes the certificates (Node can read them but not
 * make them); the keys are Node's own. It loads only here, when --tls is used.
 */
import { generateKeyPair, randomBytes, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';
import type NodeForge from 'node-forge';
import { InputError, UsageError } from '../../common/errors.js';
import { ensurePrivateDirectory, writeFileAtomic } from '../../common/files/atomic-write.js';
import { errnoCode, fileError } from '../../common/files/fs-errors.js';

/** The folder of the configuration directory that holds the CA and the server certificate. */
export const LOCAL_CA_FOLDER = 'mock-ca';

/** The names every server certificate carries: what a client on this machine calls the mock. */
export const LOOPBACK_NAMES: readonly string[] = ['localhost', '127.0.0.1', '::1'];

/** What the server listens with: PEM text. */
export interface TlsIdentity {
  cert: string;
  key: string;
  /** The CA certificate's file, when the local CA issued `cert` (clients trust this file). */
  caFile?: string;
}

export interface LocalCaFiles {
  caFile: string;
  caKeyFile: string;
  certFile: string;
  keyFile: string;
}

export function localCaFiles(configDir: string): LocalCaFiles {
  const dir = join(configDir, LOCAL_CA_FOLDER);
  return {
    caFile: join(dir, 'ca.pem'),
    caKeyFile: join(dir, 'ca-key.pem'),
    certFile: join(dir, 'server.pem'),
    keyFile: join(dir, 'server-key.pem'),
  };
}

/** The CA lives ten years; a server certificate 397 days (within what Apple's clients accept). */
const CA_DAYS = 3650;
const SERVER_DAYS = 397;
/** A server certificate this close to its end is made again. */
const RENEW_BEFORE_DAYS = 30;
const DAY_MS = 86_400_000;
/** Longest DNS name (RFC 1035), and one label of it. */
const DNS_NAME =
  /^(?=.{1,253}$)(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i;

/**
 * A `--tls-name`: an IP address or a DNS name (a wildcard only as the whole first label), or the
 * usage error that says what it is not. IPv6 in brackets is taken without them.
 */
export function tlsName(text: string, label = '--tls-name'): string {
  const bare = /^\[.*\]$/.test(text) ? text.slice(1, -1) : text;
  if (isIP(bare) !== 0) return bare.toLowerCase();
  if (DNS_NAME.test(bare)) return bare.replace(/\.$/, '').toLowerCase();
  throw new UsageError(`${label} "${text}" is not an IP address or a DNS name`, {
    hint: {
      cli: 'give the name or address a phone or emulator uses to reach this machine, e.g. --tls-name 192.168.1.20 or --tls-name desk.local',
      code: "give the name or address a client uses to reach this machine, e.g. '192.168.1.20' or 'desk.local'",
    },
  });
}

/** Whether a host keeps the mock on this machine. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

/** The loopback names, then the asked ones, each once, in that order. */
export function certificateNames(
  asked: readonly string[],
  label: (index: number) => string = () => '--tls-name',
): string[] {
  return [...new Set([...LOOPBACK_NAMES, ...asked.map((name, i) => tlsName(name, label(i)))])];
}

/** What a certificate names in its subjectAltName, as tlsName() writes names. */
function namesOf(cert: X509Certificate): string[] {
  return (cert.subjectAltName ?? '')
    .split(/,\s*/)
    .filter((entry) => entry !== '')
    .map((entry) => {
      const [kind, value = ''] = entry.split(/:(.*)/s);
      if (kind === 'IP Address') return normalIp(value);
      return value.toLowerCase();
    });
}

/** An IP address in one spelling (Node prints IPv6 in full: 0:0:0:0:0:0:0:1). */
function normalIp(ip: string): string {
  if (isIP(ip) !== 6) return ip;
  return new URL(`http://[${ip}]/`).hostname.slice(1, -1);
}

/**
 * The CA and a server certificate for `names` (certificateNames), made or reused in
 * `configDir/mock-ca/`. Says what it did through `note` (made the CA, made a certificate).
 */
export async function localTlsIdentity(
  configDir: string,
  names: readonly string[],
  note: (message: string) => void = () => undefined,
): Promise<TlsIdentity> {
  const files = localCaFiles(configDir);
  await ensurePrivateDirectory(join(configDir, LOCAL_CA_FOLDER));
  const ca = (await readCa(files)) ?? (await makeCa(files, note));
  const kept = await readServer(files, ca.cert, names);
  if (kept) return { ...kept, caFile: files.caFile };
  const made = await makeServer(files, ca, names);
  note(`made a server certificate for ${names.join(', ')} (${files.certFile})`);
  return { ...made, caFile: files.caFile };
}

interface Ca {
  cert: X509Certificate;
  certPem: string;
  keyPem: string;
}

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw fileError('read', path, error);
  }
}

/** The stored CA, or undefined when there is none yet. A damaged one is an error, never replaced. */
async function readCa(files: LocalCaFiles): Promise<Ca | undefined> {
  const [certPem, keyPem] = await Promise.all([
    readOptional(files.caFile),
    readOptional(files.caKeyFile),
  ]);
  if (certPem === undefined && keyPem === undefined) return undefined;
  if (certPem === undefined || keyPem === undefined) {
    const missing = certPem === undefined ? files.caFile : files.caKeyFile;
    throw new InputError(`the mock's local CA is incomplete: ${missing} is missing`, {
      hint: `remove the folder ${join(files.caFile, '..')} to make a new CA (devices that trusted the old one must trust the new one)`,
    });
  }
  try {
    const cert = new X509Certificate(certPem);
    const { createPrivateKey } = await import('node:crypto');
    if (!cert.ca || !cert.checkPrivateKey(createPrivateKey(keyPem))) throw new Error('mismatch');
    if (Date.parse(cert.validTo) <= Date.now()) throw new Error('expired');
    return { cert, certPem, keyPem };
  } catch {
    throw new InputError(`the mock's local CA in ${join(files.caFile, '..')} cannot be used`, {
      hint: 'its certificate or key is damaged, expired or do not belong together; remove the folder to make a new CA (devices that trusted the old one must trust the new one)',
    });
  }
}

/** The stored server certificate, when it names exactly `names`, chains to `ca` and lasts. */
async function readServer(
  files: LocalCaFiles,
  ca: X509Certificate,
  names: readonly string[],
): Promise<TlsIdentity | undefined> {
  const [cert, key] = await Promise.all([
    readOptional(files.certFile),
    readOptional(files.keyFile),
  ]);
  if (cert === undefined || key === undefined) return undefined;
  try {
    const x509 = new X509Certificate(cert);
    const { createPrivateKey } = await import('node:crypto');
    const wanted = [...names].map((n) => (isIP(n) ? normalIp(n) : n)).sort();
    const has = namesOf(x509).sort();
    const fresh = Date.parse(x509.validTo) - Date.now() > RENEW_BEFORE_DAYS * DAY_MS;
    const ours = x509.checkIssued(ca) && x509.verify(ca.publicKey);
    const paired = x509.checkPrivateKey(createPrivateKey(key));
    return fresh && ours && paired && wanted.join('\n') === has.join('\n')
      ? { cert, key }
      : undefined;
  } catch {
    // Damaged: made again, as if it were not there.
    return undefined;
  }
}

type Forge = typeof NodeForge;

async function forge(): Promise<Forge> {
  const module = (await import('node-forge')) as Forge & { default?: Forge };
  return module.default ?? module;
}

function rsaKeyPair(): Promise<{ publicPem: string; privatePem: string }> {
  return new Promise((resolve, reject) => {
    generateKeyPair(
      'rsa',
      {
        modulusLength: 2048,
        publicKeyEncoding: { type: 'spki', format: 'pem' },
        privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      },
      (error, publicPem, privatePem) =>
        error ? reject(error) : resolve({ publicPem, privatePem }),
    );
  });
}

/** A positive serial number of 16 random bytes, as hex. */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = bytes[0]! & 0x7f;
  return bytes.toString('hex');
}

function validity(days: number): { notBefore: Date; notAfter: Date } {
  // A minute back: a device whose clock is a little behind still takes it.
  const notBefore = new Date(Date.now() - 60_000);
  return { notBefore, notAfter: new Date(notBefore.getTime() + days * DAY_MS) };
}

async function makeCa(files: LocalCaFiles, note: (message: string) => void): Promise<Ca> {
  const [f, keys] = await Promise.all([forge(), rsaKeyPair()]);
  const { hostname } = await import('node:os');
  const cert = f.pki.createCertificate();
  cert.publicKey = f.pki.publicKeyFromPem(keys.publicPem);
  cert.serialNumber = serialNumber();
  Object.assign(cert.validity, validity(CA_DAYS));
  // Named after the machine: a phone that trusts several desks' mocks tells them apart.
  const subject = [
    { name: 'commonName', value: `ksctl mock local CA (${hostname().slice(0, 40)})` },
    { name: 'organizationName', value: 'ksctl mock' },
  ];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(f.pki.privateKeyFromPem(keys.privatePem), f.md.sha256.create());
  const certPem = f.pki.certificateToPem(cert);
  // The key first: a certificate without its key is an incomplete CA, reported, never used.
  await writeFileAtomic(files.caKeyFile, keys.privatePem, 0o600);
  await writeFileAtomic(files.caFile, certPem, 0o644);
  note(`made a local CA for the mock: ${files.caFile} (its key stays in that folder)`);
  return { cert: new X509Certificate(certPem), certPem, keyPem: keys.privatePem };
}

async function makeServer(
  files: LocalCaFiles,
  ca: Ca,
  names: readonly string[],
): Promise<TlsIdentity> {
  const [f, keys] = await Promise.all([forge(), rsaKeyPair()]);
  const caCert = f.pki.certificateFromPem(ca.certPem);
  const cert = f.pki.createCertificate();
  cert.publicKey = f.pki.publicKeyFromPem(keys.publicPem);
  cert.serialNumber = serialNumber();
  Object.assign(cert.validity, validity(SERVER_DAYS));
  cert.setSubject([
    { name: 'commonName', value: names[0] ?? 'localhost' },
    { name: 'organizationName', value: 'ksctl mock' },
  ]);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: names.map((name) =>
        isIP(name) !== 0 ? { type: 7, ip: name } : { type: 2, value: name },
      ),
    },
    { name: 'subjectKeyIdentifier' },
    {
      name: 'authorityKeyIdentifier',
      keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes(),
    },
  ]);
  cert.sign(f.pki.privateKeyFromPem(ca.keyPem), f.md.sha256.create());
  const certPem = f.pki.certificateToPem(cert);
  await writeFileAtomic(files.keyFile, keys.privatePem, 0o600);
  await writeFileAtomic(files.certFile, certPem, 0o644);
  return { cert: certPem, key: keys.privatePem };
}

/**
 * `--tls-cert FILE --tls-key FILE`: the user's own certificate (its chain may follow it in the
 * file) and key, checked to belong together before the mock listens.
 */
export async function userTlsIdentity(certFile: string, keyFile: string): Promise<TlsIdentity> {
  const read = async (path: string) => {
    try {
      return await readFile(path, 'utf8');
    } catch (error) {
      throw fileError('read', path, error);
    }
  };
  const [cert, key] = await Promise.all([read(certFile), read(keyFile)]);
  return pairedTlsIdentity(cert, key, {
    cert: `--tls-cert ${certFile}`,
    key: `--tls-key ${keyFile}`,
    certPlace: `the certificate in ${certFile}`,
  });
}

/**
 * A certificate (its chain may follow it) and key given as PEM text, checked to belong together;
 * `says` names them in errors (the flags and files, or the library's options).
 */
export async function pairedTlsIdentity(
  cert: string,
  key: string,
  says: { cert: string; key: string; certPlace: string },
): Promise<TlsIdentity> {
  const { createPrivateKey } = await import('node:crypto');
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch {
    throw new InputError(`${says.cert} holds no PEM certificate`);
  }
  let privateKey;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw new InputError(`${says.key} holds no unencrypted PEM private key`);
  }
  if (!x509.checkPrivateKey(privateKey)) {
    throw new InputError(`${says.key} is not the key of ${says.certPlace}`);
  }
  return { cert, key };
}
