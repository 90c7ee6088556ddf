/**
 * A device error read in the mock's journal (the console, `ksctl mock requests show`) may come
 * from any client, the vendor SDKs' included: its hint there must not blame ksctl's own client or
 * ask to report a bug where the journal just shows the protocol at work.
 */
import { describe, expect, it } from 'vitest';
import { DEVICE_CAUSES } from '../../src/common/device/causes.js';

describe('device error hints in the journal', () => {
  it('never speak of ksctl or --debug, for any cause the journal can show', () => {
    for (const cause of DEVICE_CAUSES) {
      const shown = cause.journalHint ?? cause.hint;
      expect(shown, `code ${cause.code}`).not.toMatch(/ksctl or a proxy|--debug|report it/);
    }
  });
});
