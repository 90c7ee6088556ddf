/**
 * `ksctl keys create|fetch|modify`: device requests made with a stored profile. Attributes come
 * from NAME=VALUE flags; key bytes are shown only with --show-secrets; items the service refuses
 * become the command's error after the keys it did give.
 */
import { quoted } from '../../../common/text/words.js';
import type { Column } from '../../output/render.js';
import { ConflictError, type KsctlError, UsageError } from '../../../common/errors.js';
import type { ApiVersion } from '../../../common/device/api-version.js';
import { DeviceErrorCode } from '../../../common/device/causes.js';
import type { Attributes, DeviceAnswer, DeviceKey, ItemRefusal } from '../../device/client.js';
import { createKeys, fetchKeys } from '../../usecases/keys.js';
import type { CommandContext } from '../kit/command-context.js';
import { type DeviceOptions, loadDeviceProfile, withDeviceHttp } from '../kit/device-profile.js';

/** The ref of keys created without --ref. */
export const DEFAULT_REF = 'ksctl';
const PROTECTED_PREFIX = 'ionic-protected-';

export interface KeyOutputOptions extends DeviceOptions {
  showSecrets?: boolean;
  /** The dialect of the requests (default 2.4). */
  apiVersion?: ApiVersion;
}

export interface CreateOptions extends KeyOutputOptions {
  ref?: string;
  count?: number;
  attr?: string[];
  protectedAttr?: string[];
  mutableAttr?: string[];
}

export type FetchOptions = KeyOutputOptions;

export interface ModifyOptions extends KeyOutputOptions {
  attr?: string[];
  protectedAttr?: string[];
  clear?: boolean;
  /** Replace without the stale guard. */
  force?: boolean;
  yes?: boolean;
}

export async function create(ctx: CommandContext, options: CreateOptions): Promise<void> {
  const attributes = parseAttributes(options.attr, '--attr');
  const protectedAttributes = parseAttributes(options.protectedAttr, '--protected-attr', true);
  const mutableAttributes = parseAttributes(options.mutableAttr, '--mutable-attr');
  if (Object.keys(mutableAttributes).length > 0 && options.apiVersion === '2.3') {
    throw new UsageError('--mutable-attr needs the v2.4 dialect', {
      hint: 'drop --api-version 2.3, or set them afterwards with ksctl keys modify',
    });
  }
  const ref = options.ref ?? DEFAULT_REF;
  if (ref.trim() === '') throw new UsageError('--ref must not be empty');
  const profile = await loadDeviceProfile(ctx, options);
  const { DeviceClient } = await import('../../device/client.js');
  const answer = await withDeviceHttp(ctx, (http) =>
    createKeys(
      new DeviceClient(profile, http, ctx.signal, options.apiVersion),
      [{ ref, count: options.count, attributes, protectedAttributes, mutableAttributes }],
      { fetchBack: true },
    ),
  );
  await report(ctx, answer, options, true);
}

export async function fetch(
  ctx: CommandContext,
  ids: string[],
  options: FetchOptions,
): Promise<void> {
  const profile = await loadDeviceProfile(ctx, options);
  const { DeviceClient } = await import('../../device/client.js');
  const answer = await withDeviceHttp(ctx, (http) =>
    fetchKeys(new DeviceClient(profile, http, ctx.signal, options.apiVersion), ids),
  );
  await report(ctx, answer, options, false);
}

export async function modify(
  ctx: CommandContext,
  id: string,
  options: ModifyOptions,
): Promise<void> {
  const attributes = parseAttributes(options.attr, '--attr');
  const protectedAttributes = parseAttributes(options.protectedAttr, '--protected-attr', true);
  const changes = Object.keys(attributes).length + Object.keys(protectedAttributes).length;
  if (changes === 0 && !options.clear) {
    throw new UsageError('nothing to change', {
      hint: 'pass --attr NAME=VALUE or --protected-attr NAME=VALUE (the new mutable attributes), or --clear to remove them all',
    });
  }
  if (changes > 0 && options.clear)
    throw new UsageError('--clear removes every mutable attribute: pass it alone');
  if (options.apiVersion === '2.3') {
    throw new UsageError('the v2.3 dialect has no key modify', {
      hint: 'drop --api-version 2.3: keys are modified with v2.4, whichever dialect created them',
    });
  }
  const profile = await loadDeviceProfile(ctx, options);
  const { DeviceClient } = await import('../../device/client.js');
  const { refusalError } = await import('../../device/refusals.js');
  const answer = await withDeviceHttp(ctx, async (http) => {
    const client = new DeviceClient(profile, http, ctx.signal, options.apiVersion);
    // The change quotes the key's signatures as fetched here, so it cannot undo a change made
    // meanwhile (unless --force).
    const current = await client.fetch([id]);
    const [key] = current.keys;
    if (!key) throw refusalError(current.refused);
    if (options.clear) {
      const now = attributeText(key.mutableAttributes);
      if (now === '') {
        ctx.say(`key ${id} has no mutable attributes; nothing to clear`);
        return current;
      }
      await ctx.confirm(`Remove every mutable attribute of key ${id} (${now})?`, options.yes);
    }
    const result = await client.modify([
      { key, attributes, protectedAttributes, force: options.force === true },
    ]);
    if (result.refused.length > 0) {
      const [refusal] = result.refused;
      if (refusal?.code === DeviceErrorCode.signatureStale)
        throw await staleError(refusal, key, () => client.fetch([id]));
      throw refusalError(result.refused);
    }
    // Fetched back, so the output shows the key as the service now holds it.
    return client.fetch([id]);
  });
  await report(ctx, answer, options, false);
}

/**
 * A stale modify, said in full: what changed on the key since ksctl fetched it (fetched again to
 * tell), and how to go on. Nothing was changed.
 */
async function staleError(
  refusal: ItemRefusal,
  before: DeviceKey,
  refetch: () => Promise<DeviceAnswer>,
): Promise<KsctlError> {
  let what = 'its signatures no longer match';
  try {
    const [now] = (await refetch()).keys;
    if (now) {
      const was = attributeText(before.mutableAttributes) || 'none';
      const is = attributeText(now.mutableAttributes) || 'none';
      what =
        was === is
          ? `its mutable attributes were set again (still ${is})`
          : `its mutable attributes are now ${is} (were ${was})`;
    }
  } catch {
    // The refusal is the error; what changed is detail.
  }
  return new ConflictError(
    `key ${before.id} changed since ksctl fetched it: ${what}; nothing was changed`,
    {
      hint: `\`ksctl keys fetch ${before.id}\` shows it as it is now; run the modify again to change that, or pass --force to replace it whatever it holds`,
      serviceCode: refusal.code,
      cause: refusal.error,
    },
  );
}

/** `NAME=VALUE` flags, a name given several times collecting its values in order. */
export function parseAttributes(
  flags: string[] | undefined,
  flag: string,
  protect = false,
): Attributes {
  const out: Attributes = {};
  for (const text of flags ?? []) {
    const eq = text.indexOf('=');
    const rawName = eq < 0 ? text : text.slice(0, eq);
    if (eq < 0 || rawName.trim() === '') {
      throw new UsageError(`${flag} takes NAME=VALUE, not ${quoted(text)}`, {
        hint: `for example ${flag} classification=internal; repeat the flag for more values`,
      });
    }
    const name =
      protect && !rawName.startsWith(PROTECTED_PREFIX) ? PROTECTED_PREFIX + rawName : rawName;
    if (!protect && name.startsWith(PROTECTED_PREFIX)) {
      throw new UsageError(`${name} is a protected attribute: pass it with --protected-attr`, {
        hint: 'protected values are encrypted before they leave this machine; --attr values are not',
      });
    }
    (out[name] ??= []).push(text.slice(eq + 1));
  }
  return out;
}

interface KeyRow {
  id: string;
  ref?: string;
  attributes: Attributes;
  mutableAttributes?: Attributes;
  /** Hex, only with --show-secrets. */
  key?: string;
}

function attributeText(attributes: Attributes | undefined): string {
  return Object.entries(attributes ?? {})
    .map(([name, values]) => `${name}=${values.join(',')}`)
    .join('; ');
}

/** The keys the service gave, then the items it refused as the command's error. */
async function report(
  ctx: CommandContext,
  answer: DeviceAnswer,
  options: KeyOutputOptions,
  created: boolean,
): Promise<void> {
  const rows = answer.keys.map((key: DeviceKey): KeyRow => ({
    id: key.id,
    ...(key.ref === undefined ? {} : { ref: key.ref }),
    attributes: key.attributes,
    ...(key.mutableAttributes ? { mutableAttributes: key.mutableAttributes } : {}),
    ...(options.showSecrets ? { key: key.key.toString('hex') } : {}),
  }));
  const columns: Column<KeyRow>[] = [{ header: 'ID', value: (r) => r.id }];
  if (created) columns.push({ header: 'REF', value: (r) => r.ref });
  columns.push({ header: 'ATTRIBUTES', value: (r) => attributeText(r.attributes), wrap: true });
  // Created keys have mutable attributes only when --mutable-attr gave them some.
  const mutable = rows.some((r) => attributeText(r.mutableAttributes) !== '');
  if (!created || mutable)
    columns.push({
      header: 'MUTABLE',
      value: (r) => attributeText(r.mutableAttributes),
      wrap: true,
    });
  if (options.showSecrets) columns.push({ header: 'KEY', value: (r) => r.key });
  if (rows.length > 0 || answer.refused.length === 0) {
    await ctx.render({ kind: 'table', data: rows, rows, columns });
  }
  if (answer.refused.length > 0) {
    const { refusalError } = await import('../../device/refusals.js');
    throw refusalError(answer.refused);
  }
}
