import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMock } from './mock.js';

const BIN = new URL('../../bin/ksctl.js', import.meta.url).pathname;

/** Environment of the machine without ksctl's own settings, so no user context leaks in. */
function cleanEnv() {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('KSCTL_')) env[k] = v;
  return { ...env, NO_COLOR: '1', CI: '1' };
}

/**
 * What a benchmark group gets in setup(): commands to compare and resources that are cleaned up
 * after the group, whether it succeeds or not.
 */
export class Harness {
  #cleanups = [];
  #configDir;
  #cacheDir;

  /** Registers a clean-up step; they run in reverse order. */
  defer(fn) {
    this.#cleanups.push(fn);
  }

  async tempDir(prefix = 'ksctl-bench-') {
    const dir = await mkdtemp(join(tmpdir(), prefix));
    this.defer(() => rm(dir, { recursive: true, force: true }));
    return dir;
  }

  /** A mock in its own process seeded with generated markings (see seed.js). */
  async mock(seed, options) {
    const { stop, ready } = startMock(seed, options);
    this.defer(stop);
    return ready;
  }

  /** `node -e 0`: the floor any Node CLI starts from; `node`: another Node binary than this one. */
  node(label = 'node -e 0', args = ['-e', '0'], { node = process.execPath } = {}) {
    return { label, argv: [node, ...args], env: cleanEnv() };
  }

  /**
   * The real bin/ksctl.js in a fresh config dir. `mock` points it at that mock through
   * KSCTL_BASE_URL and KSCTL_TOKEN; `verify(stdout)` checks the first run's output. `node`: run
   * bin/ksctl.js on another Node binary; `executable`: run that file (the single executable)
   * instead of bin/ksctl.js.
   */
  async ksctl(args, { label, mock, env, verify, node = process.execPath, executable } = {}) {
    this.#configDir ??= await this.tempDir('ksctl-bench-config-');
    const connection = mock
      ? { KSCTL_BASE_URL: mock.info.baseUrl, KSCTL_TOKEN: mock.info.token }
      : {};
    // The group's own code cache (bin/code-cache.js), filled by the warm-up runs.
    this.#cacheDir ??= await this.tempDir('ksctl-bench-cache-');
    return {
      label: label ?? `ksctl ${args.join(' ')}`,
      argv: executable ? [executable, ...args] : [node, BIN, ...args],
      env: {
        ...cleanEnv(),
        KSCTL_CONFIG_DIR: this.#configDir,
        KSCTL_CACHE_DIR: this.#cacheDir,
        ...connection,
        ...env,
      },
      verify,
    };
  }

  async cleanup() {
    const errors = [];
    // Taken out first: an interrupt may clean up while the group's own clean-up runs.
    for (const fn of this.#cleanups.splice(0).reverse()) {
      try {
        await fn();
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length > 0) throw errors[0];
  }
}
