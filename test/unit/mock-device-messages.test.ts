/** The messages devices log (`/v2.4/messages`): kept for `GET /_mock/messages`, bounded. */
import { describe, expect, it } from 'vitest';
import {
  DeviceMessages,
  MESSAGE_DATA_MAX_BYTES,
  MESSAGES_KEPT,
  MESSAGES_MAX_BYTES,
} from '../../src/mock/model/device/store.js';

const message = (n: number, data: Record<string, unknown> = { n }) => ({
  time: '2026-01-01T00:00:00.000Z',
  deviceId: 'ABcd.1.x',
  type: 'ionic-test',
  data,
});

describe('device messages', () => {
  it('keeps the newest in order and counts them all', () => {
    const kept = new DeviceMessages();
    kept.add(Array.from({ length: MESSAGES_KEPT + 200 }, (_, i) => message(i)));
    const { total, messages } = kept.list();
    expect(total).toBe(MESSAGES_KEPT + 200);
    expect(messages).toHaveLength(MESSAGES_KEPT);
    expect(messages[0]!.data).toEqual({ n: 200 });
    expect(messages.at(-1)!.data).toEqual({ n: MESSAGES_KEPT + 199 });
  });

  it('keeps a message too large as a note of its size, and stays within its bytes', () => {
    const kept = new DeviceMessages();
    const big = 'x'.repeat(MESSAGE_DATA_MAX_BYTES);
    kept.add([message(0, { big })]);
    expect(kept.list().messages[0]!.data).toEqual({
      'ksctl-mock': `message data of ${MESSAGE_DATA_MAX_BYTES + 10} bytes, not kept`,
    });
    const almost = 'y'.repeat(MESSAGE_DATA_MAX_BYTES - 100);
    for (let i = 0; i < 100; i++) kept.add([message(i, { almost })]);
    const bytes = kept.list().messages.reduce((sum, m) => sum + JSON.stringify(m.data).length, 0);
    expect(bytes).toBeLessThanOrEqual(MESSAGES_MAX_BYTES);
    expect(kept.list().messages.length).toBeGreaterThan(10);
    kept.clear();
    expect(kept.list()).toEqual({ total: 0, messages: [] });
  });
});
