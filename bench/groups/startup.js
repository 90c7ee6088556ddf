/**
 * (a) Start-up: commands that need no service, and the shortest commands that do (an empty
 * listing, one small marking), against a bare Node process.
 */
/**
 * The same command without NODE_EXTRA_CA_CERTS. Node reads that bundle at every start, before
 * any of the program runs: where it is set, both sides of a row pay it, and the ratio shrinks.
 */
function withoutExtraCaCerts(command, label) {
  const { NODE_EXTRA_CA_CERTS: _, ...env } = command.env;
  return { ...command, label, env };
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
    return {
      benchmarks: [
        { name: 'version', a: version, b: node, target: { atMost: 1.5 } },
        { name: 'help', a: help, b: node, target: { atMost: 1.5 } },
        { name: 'list, empty', a: list, b: node, target: { atMost: 1.5 } },
        { name: 'get', a: get, b: node, target: { atMost: 1.5 } },
        { name: 'list, no code cache', a: uncached, b: list },
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
      ],
      notes: [
        ...(process.env.NODE_EXTRA_CA_CERTS === undefined
          ? []
          : [
              'NODE_EXTRA_CA_CERTS is set here: Node reads that certificate bundle at every start (tens of milliseconds, on both sides of a row), so the rows "both without NODE_EXTRA_CA_CERTS" show what ksctl itself adds to a bare Node',
            ]),
        'ksctl runs with its code cache (bin/code-cache.js) in a directory of its own, filled by the warm-up runs; "no code cache" is every run compiling the bundle as the first does',
        'where the rest of a network command goes (node --cpu-prof, see bench/README.md): Node running its built-ins (streams, net, the socket; about a third of the process), the code cache read back into V8 (~9%), undici and its WebAssembly HTTP parser (~8%), garbage collection (~5%); node:crypto is no longer loaded (it was 3-6 ms), nor URLSearchParams or a file URL for the package root',
      ],
    };
  },
};
