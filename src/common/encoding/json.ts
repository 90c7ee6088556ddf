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

/**
 * Whether a parsed JSON value nests deeper than `max` levels. Iterative, so any depth is safe to
 * ask about; the code that reads such a value afterwards (stringify, redaction, rendering) is
 * recursive, so the value is refused first.
 */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const stack: [object, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (depth > max) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (typeof child === 'object' && child !== null) stack.push([child as object, depth + 1]);
    }
  }
  return false;
}
