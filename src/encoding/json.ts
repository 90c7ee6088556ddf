/** Small guards for JSON that arrives from the other side of the protocol, untrusted. */

/** A JSON object (not null, not an array), as a record of its members. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The members of a JSON object text, or undefined when the text is not JSON or not an object. */
export function parseJsonObject(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return isJsonObject(value) ? value : undefined;
}
