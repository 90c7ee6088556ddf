import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Enrollment (issue item 9), against the real `ksctl mock serve` with its own RSA-3072 key
 * server key: one enrollment against a bare key generation, 20 test devices at concurrency 2
 * against concurrency 1, and how many registrations per second the mock accepts.
 */

const BIN = new URL('../../bin/ksctl.js', import.meta.url).pathname;
const LOAD = new URL('../lib/enroll-register-load.js', import.meta.url).pathname;
const READY_TIMEOUT_MS = 60_000;

/** `ksctl mock serve --port 0` in its own process and config dir, stopped after the group. */
async function serveMock(h) {
  const dir = await h.tempDir('ksctl-bench-mock-');
  const ready = join(dir, 'ready.json');
  const env = { ...process.env, KSCTL_CONFIG_DIR: dir };
  for (const key of Object.keys(env))
    if (key.startsWith('KSCTL_') && key !== 'KSCTL_CONFIG_DIR') delete env[key];
  const child = spawn(
    process.execPath,
    [
      BIN,
      'mock',
      'serve',
      '--port',
      '0',
      '--ready-file',
      ready,
      '--no-log',
      '--no-context',
      '--json',
    ],
    { env, stdio: 'ignore' },
  );
  h.defer(
    () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  );
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!existsSync(ready)) {
    if (child.exitCode !== null) throw new Error(`mock serve exited with ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error('mock serve was not ready in time');
    await sleep(25);
  }
  const info = JSON.parse(await readFile(ready, 'utf8'));
  // The key server key is generated in the background: wait until the mock serves it.
  await fetch(`${info.enrollmentUrl}/keyspace/${info.keyspace}/pubkey`).then((r) => r.text());
  return { info, dir };
}

/** Environment for `ksctl enroll` as alice through the mock's portal, profiles in `dir`. */
async function enrollEnv(h, mock, name) {
  const dir = await h.tempDir(`ksctl-bench-${name}-`);
  await writeFile(join(dir, 'alice-password'), 'alice-password\n');
  return {
    env: {
      KSCTL_HOME: dir,
      KSCTL_KEYSPACE: mock.info.keyspace,
      KSCTL_API_URL: mock.info.apiUrl,
      KSCTL_ENROLLMENT_URL: mock.info.enrollmentUrl,
      KSCTL_PERSISTOR_PATH: join(dir, 'profiles.pt'),
    },
    portal: ['--username', 'alice', '--password-file', join(dir, 'alice-password')],
  };
}

function enrolled(count) {
  return (out) => {
    let data;
    try {
      data = JSON.parse(out.toString('utf8'));
    } catch (error) {
      return `not JSON: ${error.message}`;
    }
    const devices = count === undefined ? [data] : data.enrolled;
    if (!Array.isArray(devices) || devices.length !== (count ?? 1)) return 'devices missing';
    return devices.every((d) => /^[A-Za-z0-9]{4}\.1\./.test(d.deviceId))
      ? undefined
      : 'no device id';
  };
}

/** (d) One enrollment: key generation overlaps the lookups, so it should cost little more. */
export const enrollOne = {
  name: 'enroll-one',
  title: 'one enrollment against a bare RSA-3072 key generation',
  runs: 30,
  warmups: 1,
  async setup(h) {
    const mock = await serveMock(h);
    const { env, portal } = await enrollEnv(h, mock, 'one');
    const enroll = await h.ksctl(['enroll', ...portal, '-o', 'json'], {
      label: 'ksctl enroll --username alice --password-file F',
      env,
      verify: enrolled(),
    });
    const keygen = h.node('node: generateKeyPairSync rsa 3072', [
      '-e',
      "require('node:crypto').generateKeyPairSync('rsa', { modulusLength: 3072 })",
    ]);
    return {
      notes: [
        'RSA-3072 generation time varies widely from key to key (random prime search); the medians of many runs are compared',
        "ksctl searches the two 1536-bit primes itself in small steps (a sieve here, OpenSSL's checkPrime with 64 Miller-Rabin rounds on the thread pool), both cores drawing from one pool until the key has its primes, and puts the key together; Node's generateKeyPair goes through OpenSSL 3.0's slower SP 800-56B generation (src/common/enrollment/prime-search.ts, rsa-keygen.ts)",
        "the searches start once the program and the key generation chunk are loaded; the network code, the sign-in and the profile file come meanwhile (bench/README.md, where an enrollment's time goes)",
      ],
      // Issue 26: an enrollment in half a key generation.
      benchmarks: [{ name: 'enroll', a: enroll, b: keygen, target: { atMost: 0.5 } }],
    };
  },
};

/** (e) 20 test devices: concurrency 2 searches primes on two cores at once, concurrency 1 on one. */
export const enrollBulk = {
  name: 'enroll-bulk',
  title: '20 test devices, concurrency 1 against concurrency 2 (A/B = throughput gain)',
  runs: 5,
  warmups: 1,
  async setup(h) {
    const mock = await serveMock(h);
    const bulk = async (concurrency) => {
      const { env, portal } = await enrollEnv(h, mock, `c${concurrency}`);
      const args = ['enroll', '--count', '20', '--concurrency', String(concurrency), ...portal];
      return h.ksctl([...args, '-o', 'json'], {
        label: `ksctl enroll --count 20 --concurrency ${concurrency}`,
        env,
        verify: enrolled(20),
      });
    };
    return {
      notes: [
        'every device signs in to the portal for its own token pair',
        "the devices' prime search starts as the command starts, one step per device in flight (at most one per core), until every device has its key; what else an enrollment costs, on both sides, takes from the search at concurrency 2 (bench/README.md)",
      ],
      // Issue 26: concurrency 2 enrolls at least 1.8 times as fast as concurrency 1.
      benchmarks: [{ name: 'bulk', a: await bulk(1), b: await bulk(2), target: { atLeast: 1.8 } }],
    };
  },
};

const REGISTRATIONS = 400;
const IDLE_MS = 1000;

/** (f) Registrations the mock accepts per second, from packages built beforehand. */
export const enrollRegister = {
  name: 'enroll-register',
  title: `${REGISTRATIONS} pre-built registrations against idling ${IDLE_MS / 1000} s (A/B ≤ 1 ⇔ ≥ ${REGISTRATIONS / (IDLE_MS / 1000)}/s)`,
  runs: 5,
  warmups: 1,
  async setup(h) {
    const mock = await serveMock(h);
    const keyFile = join(mock.dir, 'device-key.pem');
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 3072 });
    await writeFile(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    const load = (label, extra) => ({
      label,
      argv: [
        process.execPath,
        LOAD,
        '--url',
        mock.info.url,
        '--token',
        mock.info.token,
        '--keyspace',
        mock.info.keyspace,
        '--device-key',
        keyFile,
        '--build',
        String(REGISTRATIONS),
        ...extra,
      ],
      env: { PATH: process.env.PATH ?? '' },
    });
    const notes = [
      `both sides mint ${REGISTRATIONS} token pairs and build ${REGISTRATIONS} packages first; A then registers them (16 in flight), B idles ${IDLE_MS} ms`,
      "the mock decrypts on one worker thread per core, with a key server key of three primes (RFC 8017; half the cost of a two-prime key's decryption), and reads each device key's PKCS #1 part itself rather than through OpenSSL 3.0's slow SPKI decoder",
    ];
    const sender = load(`register ${REGISTRATIONS} packages`, ['--send', String(REGISTRATIONS)]);
    sender.verify = (out) => {
      const result = JSON.parse(out.toString('utf8'));
      if (result.ok !== REGISTRATIONS) return `${result.ok} of ${REGISTRATIONS} registered`;
      notes.push(
        `the warm-up run measured ${result.perSecond} registrations per second inside the load process (target ≥ ${REGISTRATIONS / (IDLE_MS / 1000)})`,
        `health checks during that storm: ${result.health.checks} sent one after another, median ${result.health.medianMs} ms, slowest ${result.health.maxMs} ms (target < 20 ms)`,
      );
      return undefined;
    };
    return {
      notes,
      benchmarks: [
        {
          name: 'register',
          a: sender,
          b: load(`idle ${IDLE_MS} ms`, ['--idle', String(IDLE_MS)]),
          target: { atMost: 1 },
        },
      ],
    };
  },
};
