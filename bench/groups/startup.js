/**
 * (a) Start-up: commands that need no service, and the shortest commands that do (an empty
 * listing, one small marking), against a bare Node process.
 */
import { execFileSync } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { installedNode24, NODE_24 } from '../../scripts/node-24.js';

/**
 * The same command without NODE_EXTRA_CA_CERTS. Node reads that bundle at every start, before
 * any of the program runs: where it is set, both sides of a row pay it, and the ratio shrinks.
 */
function withoutExtraCaCerts(command, label) {
  const { NODE_EXTRA_CA_CERTS: _, ...env } = command.env;
  return { ...command, label, env };
}

/**
 * bench/lib/plain-request.cjs against `mock`: one GET of the listing with node:http and nothing
 * else, the floor of a network command on that Node (`node`).
 */
function plainRequest(h, mock, node, label) {
  return {
    ...h.node(label, [fileURLToPath(new URL('../lib/plain-request.cjs', import.meta.url))], {
      node,
    }),
    env: {
      ...h.node().env,
      KSCTL_BASE_URL: mock.info.baseUrl,
      KSCTL_TOKEN: mock.info.token,
    },
    verify: (out) => (out.toString() === '[]\n' ? undefined : 'not an empty list'),
  };
}

/**
 * The rows of the pinned Node 24 (scripts/node-24.js), when it is installed: the npm package's
 * `bin/ksctl.js` on it, and the single executable built from it (built here: `npm run bench`
 * rebuilds dist/, which takes the executable with it), each against that Node's own `node -e 0`.
 */
async function node24Rows(h, { mock, version, list }) {
  const node24 = installedNode24();
  if (!node24) {
    return {
      benchmarks: [],
      notes: ['no Node 24 rows: the pinned Node 24 is not installed (node scripts/node-24.js)'],
    };
  }
  process.stderr.write('[startup] building the single executable (scripts/build-sea.js)\n');
  execFileSync(
    process.execPath,
    [fileURLToPath(new URL('../../scripts/build-sea.js', import.meta.url))],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const executable = fileURLToPath(new URL('../../dist/sea/ksctl', import.meta.url));
  const bare = h.node(`node -e 0 (Node ${NODE_24})`, ['-e', '0'], { node: node24 });
  const on24 = (command, label) => ({
    ...command,
    label,
    argv: [node24, ...command.argv.slice(1)],
  });
  const seaVersion = await h.ksctl(['--version'], {
    label: 'executable: ksctl --version',
    executable,
    verify: (out) => (/single executable/.test(out.toString()) ? undefined : 'not the executable'),
  });
  const seaList = await h.ksctl(['markings', 'list', '-o', 'json'], {
    label: 'executable: ksctl markings list -o json (empty tenant)',
    executable,
    mock,
    verify: (out) => (out.toString() === '[]\n' ? undefined : 'not an empty list'),
  });
  const seaUncached = {
    ...seaList,
    label: 'the same without the code cache',
    env: { ...seaList.env, KSCTL_CACHE_DIR: '' },
  };
  const listOn24 = on24(list, `${list.label} (Node ${NODE_24})`);
  const nodeCompileCache = {
    ...listOn24,
    label: `the same loaded by Node's loader with its compile cache, not ksctl's (Node ${NODE_24})`,
    argv: [
      node24,
      fileURLToPath(new URL('../lib/node-compile-cache.cjs', import.meta.url)),
      ...list.argv.slice(2),
    ],
    env: {
      ...listOn24.env,
      KSCTL_CACHE_DIR: '',
      KSCTL_BENCH_COMPILE_CACHE: await h.tempDir('ksctl-bench-compile-cache-'),
    },
  };
  const { size } = await stat(executable);
  const plain24 = plainRequest(
    h,
    mock,
    node24,
    `one GET of the listing with node:http, nothing else (Node ${NODE_24})`,
  );
  return {
    benchmarks: [
      {
        name: 'version, Node 24',
        a: on24(version, `${version.label} (Node ${NODE_24})`),
        b: bare,
        target: { atMost: 1.5 },
      },
      {
        name: 'list, empty, Node 24',
        a: listOn24,
        b: bare,
        target: { atMost: 1.5 },
      },
      // Node 22.1 and later have a compile cache of their own; ksctl's (made after the command
      // ran) holds the functions the command compiled as it ran, Node's only what compiling the
      // file compiled at once. Below 1× would mean Node's is the better one here.
      {
        name: "list, Node 24: Node's compile cache against ksctl's",
        a: nodeCompileCache,
        b: listOn24,
      },
      { name: 'executable: version', a: seaVersion, b: bare, target: { atMost: 1.05 } },
      { name: 'executable: list, empty', a: seaList, b: bare, target: { atMost: 1.2 } },
      { name: 'executable: list, no code cache', a: seaUncached, b: seaList },
      // What the 1.2x is measured against: a network command's own floor on this Node.
      { name: 'plain GET with node:http, Node 24', a: plain24, b: bare },
      ...(process.env.NODE_EXTRA_CA_CERTS === undefined
        ? []
        : [
            {
              name: 'executable: list, empty, both without NODE_EXTRA_CA_CERTS',
              a: withoutExtraCaCerts(seaList, `${seaList.label}, no extra CA certificates`),
              b: withoutExtraCaCerts(bare, `${bare.label}, no extra CA certificates`),
            },
          ]),
    ],
    notes: [
      `the executable (dist/sea/ksctl, ${(size / 2 ** 20).toFixed(1)} MiB) is Node ${NODE_24} with the bundle as assets: its rows compare it with that Node's own node -e 0`,
      "where the executable's listing goes (--cpu-prof, bench/README.md): loading the program and network chunks ~45% (V8 reading their code cache back ~18%, the built-in modules they load ~8%, undici's modules running ~6%, reading the cache files ~5%), garbage collection ~14%, the request ~12%; a V8 start-up snapshot (useSnapshot) gained nothing (an empty one alone is 1.23x of node -e 0), node:http instead of undici 9-17% of a listing's CPU time in two runs of three (2% in the other), on every path",
    ],
  };
}

export default {
  name: 'startup',
  title: 'start-up against `node -e 0`',
  runs: 30,
  warmups: 2,
  async setup(h) {
    const node = h.node();
    const version = await h.ksctl(['--version'], {
      verify: (out) => (/^\d+\.\d+\.\d+/.test(out.toString()) ? undefined : 'no version'),
    });
    const help = await h.ksctl(['markings', 'list', '--help'], {
      verify: (out) =>
        out.toString().startsWith('Usage: ksctl markings list') ? undefined : 'no usage',
    });
    const empty = await h.mock([]);
    const list = await h.ksctl(['markings', 'list', '-o', 'json'], {
      label: 'ksctl markings list -o json (empty tenant)',
      mock: empty,
      verify: (out) => (out.toString() === '[]\n' ? undefined : 'not an empty list'),
    });
    const uncached = await h.ksctl(['markings', 'list', '-o', 'json'], {
      label: 'the same without the code cache',
      mock: empty,
      env: { KSCTL_CACHE_DIR: '' },
    });
    const small = await h.mock([{ count: 1, values: 10, prefix: 'small' }]);
    const get = await h.ksctl(['markings', 'get', 'small-0', '-o', 'json'], {
      label: 'ksctl markings get small-0 -o json (10 values)',
      mock: small,
      verify: (out) =>
        JSON.parse(out.toString()).detail?.values?.length === 10 ? undefined : 'values missing',
    });
    const node24 = await node24Rows(h, { mock: empty, version, list });
    return {
      benchmarks: [
        { name: 'version', a: version, b: node, target: { atMost: 1.5 } },
        { name: 'help', a: help, b: node, target: { atMost: 1.5 } },
        { name: 'list, empty', a: list, b: node, target: { atMost: 1.5 } },
        { name: 'get', a: get, b: node, target: { atMost: 1.5 } },
        { name: 'list, no code cache', a: uncached, b: list },
        {
          name: 'plain GET with node:http',
          a: plainRequest(
            h,
            empty,
            process.execPath,
            'one GET of the listing with node:http, nothing else',
          ),
          b: node,
        },
        ...(process.env.NODE_EXTRA_CA_CERTS === undefined
          ? []
          : [
              {
                name: 'list, empty, both without NODE_EXTRA_CA_CERTS',
                a: withoutExtraCaCerts(list, `${list.label}, no extra CA certificates`),
                b: withoutExtraCaCerts(node, 'node -e 0, no extra CA certificates'),
              },
              {
                name: 'get, both without NODE_EXTRA_CA_CERTS',
                a: withoutExtraCaCerts(get, `${get.label}, no extra CA certificates`),
                b: withoutExtraCaCerts(node, 'node -e 0, no extra CA certificates'),
              },
            ]),
        ...node24.benchmarks,
      ],
      notes: [
        ...node24.notes,
        ...(process.env.NODE_EXTRA_CA_CERTS === undefined
          ? []
          : [
              'NODE_EXTRA_CA_CERTS is set here: Node reads that certificate bundle at every start (tens of milliseconds, on both sides of a row), so the rows "both without NODE_EXTRA_CA_CERTS" show what ksctl itself adds to a bare Node',
            ]),
        'ksctl runs with its code cache (bin/code-cache.js) in a directory of its own, filled by the warm-up runs; "no code cache" is every run compiling the bundle as the first does',
        'the plain GET rows are one request of the same listing with node:http and nothing else (bench/lib/plain-request.cjs): the floor of a network command on that Node, which a ratio target for one is measured against',
        'where the rest of a network command goes (node --cpu-prof, see bench/README.md): Node running its built-ins (streams, net, the socket; about a third of the process), the code cache read back into V8 (~9%), undici and its WebAssembly HTTP parser (~8%), garbage collection (~5%); node:crypto is no longer loaded (it was 3-6 ms), nor URLSearchParams or a file URL for the package root',
      ],
    };
  },
};
