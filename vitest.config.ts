import { defineConfig } from 'vitest/config';
import SkipSummary from './test/helpers/skip-summary.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    // The run ends with how many tests were skipped and why (a program the machine lacks).
    reporters: ['default', new SkipSummary()],
  },
});
