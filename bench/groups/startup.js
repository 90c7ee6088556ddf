/** (a) Start-up: commands that need no service, against a bare Node process. */
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
    return {
      benchmarks: [
        { name: 'version', a: version, b: node, target: { atMost: 1.5 } },
        { name: 'help', a: help, b: node, target: { atMost: 1.5 } },
      ],
    };
  },
};
