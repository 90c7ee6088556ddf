/**
 * Compact JSON with object keys sorted, the layout the Ionic SDK samples use for profile files
 * and headers. Sorting also makes the output byte-stable, so tests and diffs can compare files.
 */
export function stringifySorted(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) {
      return inner;
    }
    const record = inner as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(record)
        .sort()
        .map((key) => [key, record[key]]),
    );
  });
}
