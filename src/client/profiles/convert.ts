/** `profiles convert`: copy every profile (and the active choice) into another persistor. */

import path from 'node:path';
import { NotFoundError } from '../../common/errors.js';
import { writeFileAtomic } from '../../common/files/atomic-write.js';
import { refuseToReplace } from '../../common/files/replace-guard.js';
import { checkPersistorSecrets, encodeProfileFile } from './codec.js';
import { loadProfiles, withProfileFileLock } from './store.js';
import type { PersistorSpec } from './types.js';

export interface ConvertResult {
  count: number;
  activeDeviceId: string;
  target: string;
}

/** Refuses to replace a target file that has content unless `force` is set. */
export async function convertProfiles(
  from: PersistorSpec,
  to: PersistorSpec,
  options: { force?: boolean } = {},
): Promise<ConvertResult> {
  checkPersistorSecrets(to);
  const set = await loadProfiles(from);
  if (set.profiles.length === 0) {
    throw new NotFoundError(`${from.path} holds no profiles to convert`, {
      hint: 'Check the source path and persistor type.',
    });
  }
  const bytes = encodeProfileFile(to, set, to.passwordVersion);
  await withProfileFileLock(to.path, async () => {
    await refuseToReplace(to.path, options.force);
    await writeFileAtomic(path.resolve(to.path), bytes);
  });
  return { count: set.profiles.length, activeDeviceId: set.activeDeviceId, target: to.path };
}
