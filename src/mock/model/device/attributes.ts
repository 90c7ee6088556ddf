/**
 * Key attributes on the service side: parsing the attribute text a device sends, opening its
 * protected values, and the markings rule of docs/design.md 2.4 (an attribute named like a marking
 * carries only that marking's values; a marking's default is added when the attribute is left out).
 */
import {
  aad,
  asStringList,
  isProtectedAttribute,
  openProtectedValues,
  protectValues,
} from '../../../common/device/crypto.js';
import { DeviceErrorCode } from '../../../common/device/causes.js';
import type { ItemErrorWire } from '../../../common/device/wire.js';
import { isJsonObject } from '../../../common/encoding/json.js';
import type { MarkingsStore } from '../markings/store.js';

export type Attributes = Record<string, string[]>;

/** How many allowed values a refusal lists before "and N more". */
const ALLOWED_SHOWN = 20;

export class ItemFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }

  wire(): ItemErrorWire {
    return { code: this.code, message: this.message };
  }
}

/**
 * The attributes of a JSON text: an object whose members are arrays of strings. A bare string is
 * taken as its one value (the JS SDK passes values as its caller gives them).
 */
export function parseAttributes(text: string, member: string): Attributes {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ItemFailure(DeviceErrorCode.itemInvalid, `${member} is not JSON`);
  }
  if (!isJsonObject(value)) {
    throw new ItemFailure(DeviceErrorCode.itemInvalid, `${member} must be a JSON object`);
  }
  // fromEntries defines own members, so even a "__proto__" attribute stays an attribute.
  return Object.fromEntries(
    Object.entries(value).map(([name, values]): [string, string[]] => {
      const list = asStringList(values);
      if (list !== undefined) return [name, list];
      throw new ItemFailure(
        DeviceErrorCode.itemInvalid,
        `${member}: attribute "${name}" must be an array of strings`,
      );
    }),
  );
}

/**
 * The attributes with their protected values opened, as the device sealed them (SEP.CD:KS,
 * AAD = attribute name); a value that does not open fails the item.
 */
export function openProtected(attributes: Attributes, ksKey: Buffer): Attributes {
  return Object.fromEntries(
    Object.entries(attributes).map(([name, values]): [string, string[]] => {
      if (!isProtectedAttribute(name)) return [name, values];
      const opened = values.length === 1 ? openProtectedValues(ksKey, name, values[0]!) : undefined;
      if (opened === undefined) {
        throw new ItemFailure(
          DeviceErrorCode.protectedUnreadable,
          `protected attribute "${name}" must be one value sealed with the device's SEP.CD:KS key and its name as AAD`,
        );
      }
      return [name, opened];
    }),
  );
}

/** Opened attributes as a key stores them: protected values sealed under the data key, AAD = id. */
export function sealForKey(attributes: Attributes, dataKey: Buffer, keyId: string): Attributes {
  return Object.fromEntries(
    Object.entries(attributes).map(([name, values]): [string, string[]] => [
      name,
      isProtectedAttribute(name) ? [protectValues(dataKey, aad(keyId), values)] : values,
    ]),
  );
}

/** Refuses a value a marking does not have, naming the marking, the value and what is allowed. */
export function enforceMarkings(attributes: Attributes, markings: MarkingsStore | undefined): void {
  if (!markings) return;
  for (const [name, values] of Object.entries(attributes)) {
    if (isProtectedAttribute(name)) continue;
    const rule = markings.attributeRule(name);
    if (!rule) continue;
    const refused = values.find((value) => !rule.hasValue(value));
    if (refused === undefined) continue;
    const allowed = rule.valueNames();
    const shown = allowed
      .slice(0, ALLOWED_SHOWN)
      .map((v) => JSON.stringify(v))
      .join(', ');
    const more =
      allowed.length > ALLOWED_SHOWN ? ` and ${allowed.length - ALLOWED_SHOWN} more` : '';
    throw new ItemFailure(
      DeviceErrorCode.markingValueRefused,
      `marking "${rule.name}" has no value ${JSON.stringify(refused)}; allowed: ${allowed.length === 0 ? 'none (the marking has no values)' : shown + more}`,
    );
  }
}

/**
 * The attributes with every marking default the device left out of both `attributes` and
 * `mutable` (a marking given as a mutable attribute is not given a fixed default too).
 */
export function withMarkingDefaults(
  attributes: Attributes,
  markings: MarkingsStore | undefined,
  mutable: Attributes = {},
): Attributes {
  if (!markings) return attributes;
  const out = { ...attributes };
  for (const { name, defaultValue } of markings.defaults()) {
    if (!Object.hasOwn(out, name) && !Object.hasOwn(mutable, name)) out[name] = [defaultValue];
  }
  return out;
}
