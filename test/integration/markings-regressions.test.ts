/**
 * Regression tests for bugs found in the markings side, each named after the bug.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { HttpMarkingsApi } from '../../src/api/markings.js';
import { ConflictError } from '../../src/errors.js';
import { startMock, type TestMock } from '../helpers/mock.js';

let mock: TestMock;
let client: ApiClient;
let api: HttpMarkingsApi;

beforeAll(async () => {
  mock = await startMock();
  client = new ApiClient({ baseUrl: mock.baseUrl, auth: { kind: 'bearer', token: mock.token } });
  api = new HttpMarkingsApi(client);
});
afterAll(async () => {
  await client.close();
  await mock.close();
});
beforeEach(() => mock.reset());

async function names(): Promise<string[]> {
  const out: string[] = [];
  for await (const m of api.listMarkings({ valueLimit: 0 })) out.push(m.name);
  return out;
}

describe('mock: a rename in Create or Update Multiple dropped the name another item had just taken', () => {
  it('swapping two marking names keeps both findable by name, and names unique', async () => {
    const a = await api.createMarking({ name: 'a' });
    const b = await api.createMarking({ name: 'b' });
    await api.createOrUpdateMarkings([
      { id: a.id, name: 'b' },
      { id: b.id, name: 'a' },
    ]);
    expect((await api.resolveMarking('b')).id).toBe(a.id);
    expect((await api.resolveMarking('a')).id).toBe(b.id);
    await expect(api.createMarking({ name: 'b' })).rejects.toBeInstanceOf(ConflictError);
    expect(await names()).toEqual(['a', 'b']);
  });

  it('a new marking created before the item that frees its name stays findable', async () => {
    const old = await api.createMarking({ name: 'classification' });
    await api.createOrUpdateMarkings([
      { name: 'classification', public: true },
      { id: old.id, name: 'old-classification' },
    ]);
    expect((await api.resolveMarking('classification')).public).toBe(true);
    expect((await api.resolveMarking('old-classification')).id).toBe(old.id);
    await expect(api.createMarking({ name: 'classification' })).rejects.toBeInstanceOf(
      ConflictError,
    );
    expect(await names()).toEqual(['classification', 'old-classification']);
  });
});
