/**
 * Key requests as an enrolled device, as `ksctl keys` and the library's `DeviceClient` make them:
 * keys created (and, for the CLI, fetched back, so what is shown is what the service holds, marking
 * defaults included) and keys fetched, each id once.
 */
import type { DeviceAnswer, DeviceClient, KeyRequest } from '../device/client.js';

export type CreateKeyRequest = Omit<KeyRequest, 'count' | 'attributes'> &
  Partial<Pick<KeyRequest, 'count' | 'attributes'>>;

export interface CreateKeysOptions {
  /** Fetch the created keys back: their attributes as the service holds them, and proof each can be had again. */
  fetchBack?: boolean;
}

/** Creates `count` keys (default 1) under each ref; refused refs are in `refused`. */
export async function createKeys(
  client: DeviceClient,
  requests: readonly CreateKeyRequest[],
  options: CreateKeysOptions = {},
): Promise<DeviceAnswer> {
  const created = await client.create(
    requests.map((r) => ({ ...r, count: r.count ?? 1, attributes: r.attributes ?? {} })),
  );
  if (options.fetchBack !== true || created.keys.length === 0) return created;
  const fetched = await client.fetch(created.keys.map((key) => key.id));
  const refOf = new Map(created.keys.map((key) => [key.id, key.ref]));
  return {
    keys: fetched.keys.map((key) => ({ ...key, ref: refOf.get(key.id) })),
    refused: [...created.refused, ...fetched.refused],
  };
}

/** Fetches keys by id, each id once, attributes checked against the service's signatures. */
export function fetchKeys(client: DeviceClient, ids: readonly string[]): Promise<DeviceAnswer> {
  return client.fetch([...new Set(ids)]);
}
