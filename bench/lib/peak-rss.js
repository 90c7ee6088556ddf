// Preloaded (NODE_OPTIONS=--import) by peakRss() in measure.js: at exit, writes the process's
// peak resident set size in bytes to the file named by KSCTL_BENCH_RSS_FILE.
//
// VmHWM of /proc/self/status where there is one: it is this program's own peak. getrusage's
// maxRSS (process.resourceUsage) carries over the peak of the process it was spawned from, so a
// large parent makes every child look as large as itself.
import { readFileSync, writeFileSync } from 'node:fs';

function peakRssBytes() {
  try {
    const match = /^VmHWM:\s*(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (match) return Number(match[1]) * 1024;
  } catch {
    // not Linux: fall back to getrusage
  }
  return process.resourceUsage().maxRSS * 1024;
}

process.on('exit', () => {
  const file = process.env.KSCTL_BENCH_RSS_FILE;
  if (file) writeFileSync(file, String(peakRssBytes()));
});
