// A vitest file with its own mock: seeded markings, one enrolled device, keys with a marking.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { DeviceClient, enroll, MarkingsClient, type Profile } from 'ksctl';
import { type Mock, startMock } from 'ksctl/mock';

let mock: Mock;
let profile: Profile;

beforeAll(async () => {
  mock = await startMock({
    seed: {
      markings: [
        { name: 'classification', values: ['public', 'restricted'], defaultValue: 'public' },
      ],
    },
  });
  profile = await enroll({
    keyspace: mock.keyspace,
    apiUrl: mock.apiUrl,
    enrollmentUrl: mock.enrollmentUrl,
    tokens: mock.mintTokens('alice'),
    name: 'vitest',
  });
});

afterAll(() => mock.close());

test('the seeded marking is there', async () => {
  const markings = new MarkingsClient({ baseUrl: mock.baseUrl, token: mock.token });
  const marking = await markings.get('classification');
  expect(marking.detail.values?.map((value) => value.name)).toEqual(['public', 'restricted']);
  await markings.close();
});

test('a key created with a marking carries it, and one without gets the default', async () => {
  const device = new DeviceClient(profile);
  const created = await device.createKeys([
    { ref: 'report', attributes: { classification: ['restricted'] } },
    { ref: 'notes' },
  ]);
  expect(created.refused).toEqual([]);
  const fetched = await device.fetchKeys(created.keys.map((key) => key.id));
  const byRef = new Map(created.keys.map((key) => [key.id, key.ref]));
  const classification = Object.fromEntries(
    fetched.keys.map((key) => [byRef.get(key.id), key.attributes.classification]),
  );
  expect(classification).toEqual({ report: ['restricted'], notes: ['public'] });
  expect(mock.keys()).toHaveLength(2);
  await device.close();
});

test('a value the marking does not have is refused', async () => {
  const device = new DeviceClient(profile);
  await expect(
    device.createKeys({ ref: 'x', attributes: { classification: ['secret'] } }),
  ).rejects.toMatchObject({ code: 'E_INPUT' });
  await device.close();
});
