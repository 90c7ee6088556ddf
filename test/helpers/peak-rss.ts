/**
 * Peak RSS of a spawned ksctl, measured by the process itself: a preload writes, at exit, VmHWM
 * of /proc/self/status (its own peak; getrusage's maxRSS would carry over the peak of the test
 * worker that spawned it), or getrusage's where there is no /proc.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface PeakRss {
  /** For NODE_OPTIONS. */
  nodeOptions: string;
  /** The peak in bytes of the last process that ran with `nodeOptions`. */
  read(): Promise<number>;
}

export async function peakRssProbe(dir: string): Promise<PeakRss> {
  const preload = join(dir, 'peak-rss.cjs');
  const out = join(dir, 'peak-rss');
  await writeFile(
    preload,
    `const fs = require('node:fs');
process.on('exit', () => {
  let bytes = process.resourceUsage().maxRSS * 1024;
  try {
    const match = /^VmHWM:\\s*(\\d+) kB$/m.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    if (match) bytes = Number(match[1]) * 1024;
  } catch {}
  fs.writeFileSync(${JSON.stringify(out)}, String(bytes));
});
`,
  );
  return {
    nodeOptions: `--require ${preload}`,
    read: async () => Number(await readFile(out, 'utf8')),
  };
}
