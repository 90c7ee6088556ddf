// @ts-check
// A node:test file with its own mock: seeded markings, one enrolled device, keys with a marking.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DeviceClient, enroll, MarkingsClient, NotFoundError } from 'ksctl';
import { startMock } from 'ksctl/mock';

/** @type {import('ksctl/mock').Mock} */
let mock;
/** @type {import('ksctl').Profile} */
let profile;

before(async () => {
  mock = await startMock({
    seed: { markings: [{ name: 'region', values: ['eu', 'us'] }] },
  });
  profile = await enroll({
    keyspace: mock.keyspace,
    apiUrl: mock.apiUrl,
    enrollmentUrl: mock.enrollmentUrl,
    tokens: mock.mintTokens('alice'),
    name: 'node-test',
  });
});

after(() => mock.close());

test('markings: the seed, and a typed error for what is missing', async () => {
  const markings = new MarkingsClient({ baseUrl: mock.baseUrl, token: mock.token });
  const names = [];
  for await (const marking of markings.list({ valueLimit: 0 })) names.push(marking.name);
  assert.deepEqual(names, ['region']);
  await assert.rejects(markings.get('colour'), NotFoundError);
  await markings.close();
});

test('a key created with a marking is fetched back with it', async () => {
  const device = new DeviceClient(profile);
  const created = await device.createKeys({ ref: 'invoice', attributes: { region: ['eu'] } });
  const [key] = created.keys;
  assert.ok(key);
  const fetched = await device.fetchKeys(key.id);
  assert.deepEqual(fetched.keys[0]?.attributes.region, ['eu']);
  assert.equal(mock.devices()[0]?.deviceId, profile.deviceId);
  await device.close();
});
