import { once } from 'node:events';
import { appendFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { peakRss } from '../lib/measure.js';
import { bytes } from '../lib/report.js';

/**
 * (issue 17) Peak RSS of `profiles list`, `markings apply` and `markings list` when what they read
 * is hostile (`/dev/zero`, a file far over its cap, an endless answer), beside the same commands
 * on ordinary input. The refusals must stay near the floor of a command, and never reach the
 * ~200 MiB beyond it the issue allows; A/B times say a refusal is no slower than the real work.
 */

const MIB = 1024 * 1024;
const PROFILES = 1_000;
const MARKINGS = 1_000;
/** Size of the hostile markings files: each far under the 64 MiB cap. */
const SHAPE_MIB = 16;
/** Markings of the large tenant's export. */
const EXPORTED = 100_000;

/** `unit(i)` joined by `separator` between `head` and `tail`, about SHAPE_MIB in all. */
function fill(head, unit, tail, separator = '') {
  const count = Math.floor(
    (SHAPE_MIB * MIB - head.length - tail.length) / (unit(0).length + separator.length),
  );
  return head + Array.from({ length: count }, (_, i) => unit(i)).join(separator) + tail;
}

const seven = (i) => String(i).padStart(7, '0');

/**
 * Markings files that are small for their memory: before the node budget, 4 MiB of `- a` took
 * 1.2 GiB, 4 MiB of `[[[[` 3.8 GiB. Name, text, and the exit code ksctl ends with.
 */
const SHAPES = [
  ['dash.yaml', () => fill('markings:\n', () => '- a\n', ''), 3],
  ['zeros.json', () => fill('{"markings":[', () => '0', ']}', ','), 3],
  ['deep.json', () => '['.repeat(SHAPE_MIB * MIB), 3],
  [
    'many-values.yaml',
    () => fill('markings:\n  - name: m\n    values:\n', (i) => `      - v${seven(i)}\n`, ''),
    3,
  ],
  ['many-keys.yaml', () => fill('markings:\n  - name: m\n', (i) => `    k${seven(i)}: 0\n`, ''), 3],
  [
    'aliases.yaml',
    () => fill('x: &x {name: m, values: [a, b, c]}\nmarkings:\n', () => '  - *x\n', ''),
    3,
  ],
  ['tiny-markings.yaml', () => fill('markings:\n', (i) => `  - name: m${seven(i)}\n`, ''), 3],
];

/** What `markings export` writes for a tenant of `count` markings of three values. */
function exportedFile(count, format) {
  const markings = Array.from({ length: count }, (_, i) => ({
    name: `marking-${String(i).padStart(6, '0')}`,
    description: `marking ${i}`,
    ...(i % 2 === 0 ? { public: true } : {}),
    defaultValue: `low-${i}`,
    values: [
      { name: `high-${i}`, description: 'high' },
      { name: `low-${i}`, description: 'low' },
      `mid-${i}`,
    ],
  }));
  if (format === 'json') return `${JSON.stringify({ markings }, null, 2)}\n`;
  // One line: positions are found by a cursor, never by a search from the start of the line.
  if (format === 'min.json') return JSON.stringify({ markings });
  const entry = (m) =>
    `  - name: ${m.name}\n    description: ${m.description}\n${m.public ? '    public: true\n' : ''}` +
    `    defaultValue: ${m.defaultValue}\n    values:\n` +
    m.values
      .map((v) =>
        typeof v === 'string'
          ? `      - ${v}\n`
          : `      - name: ${v.name}\n        description: ${v.description}\n`,
      )
      .join('');
  return `markings:\n${markings.map(entry).join('')}`;
}

/** A plaintext profile file of `count` profiles. */
function profileFile(count) {
  const hex = (i) => i.toString(16).padStart(64, '0');
  const profiles = Array.from({ length: count }, (_, i) => ({
    name: `device-${i}`,
    deviceId: `ABcd.1.${String(i).padStart(8, '0')}-0000-4000-8000-000000000000`,
    server: 'http://127.0.0.1:9',
    aesCdIdcKey: hex(i),
    aesCdEiKey: hex(i + 1),
    creationTimestamp: 1_700_000_000,
  }));
  return JSON.stringify({ activeDeviceId: profiles[0].deviceId, profiles });
}

function markingsFile(count) {
  const markings = Array.from({ length: count }, (_, i) => ({
    name: `bench-${String(i).padStart(4, '0')}`,
    description: `marking ${i}`,
    values: ['a', 'b', 'c'].map((v) => `${v}-${i}`),
  }));
  return JSON.stringify({ markings });
}

/** A listing whose first marking's name never ends (until the client hangs up). */
async function endlessServer(h) {
  const chunk = Buffer.alloc(MIB, 'a');
  const server = createServer((req, res) => {
    res.on('error', () => {});
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"totalResults":1,"Resources":[{"id":"x","name":"');
    const pump = () => {
      while (!res.destroyed && res.write(chunk));
      if (!res.destroyed) res.once('drain', pump);
    };
    pump();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  h.defer(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  return `http://127.0.0.1:${server.address().port}/v2/dev`;
}

export default {
  name: 'hostile-inputs',
  title: 'hostile input and answers against ordinary ones: refusals, and their peak RSS',
  runs: 3,
  warmups: 1,
  async setup(h) {
    const dir = await h.tempDir();
    const profiles = join(dir, 'profiles.pt');
    await writeFile(profiles, profileFile(PROFILES));
    const markings = join(dir, 'markings.json');
    await writeFile(markings, markingsFile(MARKINGS));
    // 200 MB of YAML, written a megabyte at a time: refused by its size before a byte is read.
    const huge = join(dir, 'huge.yaml');
    await writeFile(huge, 'markings:\n  - name: x\n    description: "');
    const line = Buffer.alloc(1_000_000, 'd');
    for (let i = 0; i < 200; i++) await appendFile(huge, line);
    await appendFile(huge, '"\n');
    const shapes = {};
    for (const [name, text, exitCode] of SHAPES) {
      const path = join(dir, name);
      await writeFile(path, text());
      shapes[name] = { path, exitCode };
    }
    for (const format of ['yaml', 'json', 'min.json']) {
      const path = join(dir, `export.${format}`);
      await writeFile(path, exportedFile(EXPORTED, format));
      shapes[`export.${format}`] = { path, exitCode: 0 };
    }
    const mock = await h.mock([{ count: MARKINGS, values: 3 }]);
    const endless = await endlessServer(h);
    const refused = (exitCode) => ({ exitCode });

    const commands = {
      profilesZero: {
        ...(await h.ksctl(['profiles', 'list', '--persistor-path', '/dev/zero'])),
        ...refused(3),
      },
      profiles: await h.ksctl(['profiles', 'list', '--persistor-path', profiles, '-o', 'json'], {
        verify: (out) =>
          JSON.parse(out.toString('utf8')).length === PROFILES ? undefined : 'not every profile',
      }),
      applyZero: {
        ...(await h.ksctl(['markings', 'apply', '-f', '/dev/zero', '--dry-run'], { mock })),
        ...refused(3),
      },
      applyHuge: {
        ...(await h.ksctl(['markings', 'apply', '-f', huge, '--dry-run'], { mock })),
        ...refused(3),
      },
      apply: await h.ksctl(['markings', 'apply', '-f', markings, '--dry-run'], { mock }),
      listEndless: {
        ...(await h.ksctl(['markings', 'list', '-o', 'json'], {
          label: 'ksctl markings list (an endless answer)',
          env: { KSCTL_BASE_URL: endless, KSCTL_TOKEN: 'bench' },
        })),
        ...refused(7),
      },
      list: await h.ksctl(['markings', 'list', '-o', 'json'], { mock }),
    };
    const rss = {};
    for (const [name, command] of Object.entries(commands)) rss[name] = await peakRss(command);
    const shapeRss = [];
    for (const [name, { path, exitCode }] of Object.entries(shapes)) {
      const command = await h.ksctl(['markings', 'apply', '-f', path, '--dry-run', '-o', 'json'], {
        mock,
      });
      shapeRss.push(`${name} ${bytes(await peakRss({ ...command, exitCode }))}`);
    }
    return {
      notes: [
        `peak RSS of profiles list: /dev/zero ${bytes(rss.profilesZero)}, a file of ${PROFILES.toLocaleString('en')} profiles ${bytes(rss.profiles)}`,
        `peak RSS of markings apply --dry-run: /dev/zero ${bytes(rss.applyZero)}, 200 MB of YAML ${bytes(rss.applyHuge)}, ${MARKINGS.toLocaleString('en')} markings ${bytes(rss.apply)}`,
        `peak RSS of markings apply --dry-run on ${SHAPE_MIB} MiB hostile files (refused, exit 3) and a ${EXPORTED.toLocaleString('en')}-marking export (applies): ${shapeRss.join(', ')}`,
        `peak RSS of markings list: an endless answer (refused at the 128 MiB page cap) ${bytes(rss.listEndless)}, ${MARKINGS.toLocaleString('en')} markings ${bytes(rss.list)}`,
        "the issue allows ~200 MiB beyond a command's ordinary working set",
      ],
      benchmarks: [
        { name: 'profiles list', a: commands.profilesZero, b: commands.profiles },
        { name: 'markings apply', a: commands.applyZero, b: commands.apply },
        { name: 'markings list', a: commands.listEndless, b: commands.list },
      ],
    };
  },
};
