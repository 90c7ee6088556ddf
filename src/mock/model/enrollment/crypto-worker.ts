/**
 * One thread of the mock's crypto pool (crypto-pool.ts): opens register requests, the RSA work of
 * a registration, off the thread that answers HTTP.
 */
import { parentPort } from 'node:worker_threads';
import { openRegistration } from './service-side.js';
import type { OpenJob, OpenResult } from './crypto-pool.js';

parentPort?.on('message', (job: OpenJob) => {
  let result: OpenResult;
  try {
    result = { id: job.id, opened: openRegistration(job.body, job.keyspace, job.privateKey) };
  } catch (error) {
    result = { id: job.id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(result);
});
