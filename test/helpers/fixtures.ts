/**
 * Files the tests read, kept in the repository (test/fixtures/): a clone has nothing beside it.
 */
import { fileURLToPath } from 'node:url';

const fixture = (path: string): string =>
  fileURLToPath(new URL(`../fixtures/${path}`, import.meta.url));

/** The Ionic SDK sample profile files (see test/fixtures/ionic-persistors/README.md). */
export const IONIC_SAMPLE_PT = fixture('ionic-persistors/sample-persistor.pt');
export const IONIC_SAMPLE_PW = fixture('ionic-persistors/sample-persistor.pw');

/** A state directory of format 2 and what it holds (see test/fixtures/mock-state-format2/README.md). */
export const MOCK_STATE_FORMAT2 = fixture('mock-state-format2');

/** A state directory of format 3 and what it holds (see test/fixtures/mock-state-format3/README.md). */
export const MOCK_STATE_FORMAT3 = fixture('mock-state-format3');
