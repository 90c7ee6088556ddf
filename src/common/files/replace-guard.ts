/** The one refusal to replace a file that has content: `profiles convert` and `markings export`. */

import { stat } from 'node:fs/promises';
import { ConflictError } from '../errors.js';
import { errnoCode, fileError } from './fs-errors.js';

/** Throws unless `force` is set or the file is missing or empty. */
export async function refuseToReplace(filePath: string, force: boolean | undefined): Promise<void> {
  if (force === true || !(await hasContent(filePath))) return;
  throw new ConflictError(`${filePath} already exists and is not empty`, {
    hint: {
      cli: 'pass --force to replace it, or choose another target path',
      code: 'pass { force: true } to replace it, or choose another target path',
    },
  });
}

async function hasContent(filePath: string): Promise<boolean> {
  try {
    return (await stat(filePath)).size > 0;
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') {
      return false;
    }
    throw fileError('check', filePath, error);
  }
}
