/**
 * Peak RSS of a spawned ksctl, measured by the process itself: a preload writes, at exit, VmHWM
 * of /proc/self/status (its own peak; getrusage's maxRSS would carry over the peak of the test
 * worker that spawned it), or getrusage's where there is no /proc.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The bounds were written for Node 20. Node 24's V8 lets the young generation grow several times
 * larger before it collects (a hostile YAML file peaked at 307 MB there against 213 MB on Node 20,
 * and at 221 MB with the semi-spaces held to Node 20's 16 MiB; a capture of 20,000 markings at
 * 333 MB against 210). What is measured is what ksctl holds, so on Node 22 and later the young
 * generation is held to Node 20's size, and a bound means the same on both.
 */
const YOUNG_GENERATION =
  Number(process.versions.node.split('.')[0]) >= 22 ? ' --max-semi-space-size=16' : '';

export interface PeakRss {
  /** For NODE_OPTIONS (with the young generation held to Node 20's size). */
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
    nodeOptions: `--require ${preload}${YOUNG_GENERATION}`,
    read: async () => Number(await readFile(out, 'utf8')),
  };
}
