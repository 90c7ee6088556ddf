import { setFlagsFromString } from 'node:v8';
import type { Dispatcher } from 'undici';
import type { AttemptSignal } from './attempt-timeout.js';
import Agent from 'undici/lib/dispatcher/agent.js';
import dispatchRequest from 'undici/lib/api/api-request.js';

/**
 * undici, as little of it as ksctl needs. Its entry point also loads fetch, WebSocket, caches,
 * mocks and Node's own copy of undici, which cost more start-up than a whole command against a
 * local service; the agent and the request API are self-contained files of the package (the same
 * objects its entry point exports, checked by test/unit/transport.test.ts).
 */
export { Agent };
export type { Dispatcher };

let baselineOnly = false;

/**
 * undici parses HTTP with llhttp compiled to WebAssembly. V8 recompiles the hot parser function
 * with its optimizing compiler in the background, and a process does not exit before that job is
 * done: 100-300 ms after the last byte of a short command. The baseline code parses a page of a
 * listing in well under a millisecond, so a CLI never gains from the optimized one. A flag of the
 * whole process: the CLI sets it (ApiClient's `shortLived`), a program using the library does not.
 */
export function compileWasmForShortProcess(): void {
  if (baselineOnly) return;
  baselineOnly = true;
  setFlagsFromString('--liftoff-only');
}

export interface RequestOptions {
  method: Dispatcher.HttpMethod;
  headers: Record<string, string>;
  body?: string;
  dispatcher: Dispatcher;
  /** An AbortSignal, or any EventTarget with its `aborted` and `reason` (undici reads no more). */
  signal?: AbortSignal | AttemptSignal;
}

/** undici's `request`, on the given dispatcher, to `path` (with its query) at `origin`. */
export function request(
  { origin, path }: { origin: string; path: string },
  options: RequestOptions,
): Promise<Dispatcher.ResponseData> {
  return dispatchRequest.call(options.dispatcher, {
    method: options.method,
    headers: options.headers,
    body: options.body,
    signal: options.signal as AbortSignal | undefined,
    origin,
    path,
  });
}
