import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * What a bench mock holds live (mock-child.js): on SIGUSR2 it collects all garbage twice and
 * writes `{ heapUsed, arrayBuffers }` (bytes) to this file, which `liveMemory` reads. The
 * resident memory counts the collector's room too; this is the live data alone.
 */
export function heapReportPath(pid) {
  return join(tmpdir(), `ksctl-bench-heap-${pid}.json`);
}

/** Asks the mock with this pid for its live memory; MiB of heap and of array buffers. */
export async function liveMemory(pid) {
  const path = heapReportPath(pid);
  await rm(path, { force: true });
  process.kill(pid, 'SIGUSR2');
  for (let tries = 0; tries < 100; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const text = await readFile(path, 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    await rm(path, { force: true });
    const { heapUsed, arrayBuffers } = JSON.parse(text);
    const mib = (bytes) => Math.round((bytes / 1024 / 1024) * 10) / 10;
    return { heapMiB: mib(heapUsed), arrayBuffersMiB: mib(arrayBuffers) };
  }
  throw new Error(`the mock (pid ${pid}) did not report its memory within 10 s`);
}
