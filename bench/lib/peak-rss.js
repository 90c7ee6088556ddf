// Preloaded (NODE_OPTIONS=--import) by peakRss() in measure.js: at exit, writes the process's
// peak resident set size in bytes to the file named by KSCTL_BENCH_RSS_FILE.
import { writeFileSync } from 'node:fs';

process.on('exit', () => {
  const file = process.env.KSCTL_BENCH_RSS_FILE;
  if (file) writeFileSync(file, String(process.resourceUsage().maxRSS * 1024));
});
