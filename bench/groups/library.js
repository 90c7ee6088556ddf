/**
 * (i) The library's mock (issue 20): a test suite starting a mock per file. `startMock()` of
 * ksctl/mock against `ksctl mock serve` spawned per file, for one file and for a suite of
 * FILES files, each side one process (bench/lib/library-suite.js) that starts each file's mock,
 * waits for its first answer (List Markings) and stops it.
 */
const SUITE = new URL('../lib/library-suite.js', import.meta.url).pathname;
const FILES = 20;

function median(values) {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export default {
  name: 'library',
  title: `startMock() against \`ksctl mock serve\` per test file: 1 file, and a suite of ${FILES}`,
  runs: 10,
  warmups: 1,
  async setup(h) {
    const config = await h.tempDir('ksctl-bench-library-');
    const notes = [];
    const suite = (mode, files, label) => ({
      label,
      argv: [process.execPath, SUITE, '--mode', mode, '--files', String(files)],
      env: { PATH: process.env.PATH ?? '', KSCTL_CONFIG_DIR: config, NO_COLOR: '1' },
      verify: (out) => {
        const result = JSON.parse(out.toString('utf8'));
        if (result.firstAnswerMs.length !== files) return `${result.firstAnswerMs.length} files`;
        notes.push(
          `${label}: start to first answer, median per file in the warm-up run: ${median(result.firstAnswerMs).toFixed(1)} ms (the whole suite ${Math.round(result.totalMs)} ms in-process)`,
        );
        return undefined;
      },
    });
    return {
      benchmarks: [
        {
          name: 'one file',
          a: suite('library', 1, 'startMock(), 1 file'),
          b: suite('serve', 1, 'ksctl mock serve, 1 file'),
          target: { atMost: 1 },
        },
        {
          name: `${FILES} files`,
          a: suite('library', FILES, `startMock(), ${FILES} files`),
          b: suite('serve', FILES, `ksctl mock serve, ${FILES} files`),
          target: { atMost: 1 },
        },
      ],
      notes,
    };
  },
};
