/**
 * Seeds made of generated markings, described compactly so the description crosses the process
 * boundary instead of a million values.
 *
 * A spec is a list of `{ count, values, prefix? }`: `count` markings named `PREFIX-00000`… each
 * with `values` values named `value-00000`…
 */
export function syntheticSeed(spec = []) {
  const markings = [];
  for (const { count, values, prefix = 'marking' } of spec) {
    const valueNames = Array.from({ length: values }, (_, i) => `value-${pad(i, values)}`);
    for (let i = 0; i < count; i++) {
      markings.push({
        name: `${prefix}-${pad(i, count)}`,
        description: `Benchmark marking ${i + 1} of ${count}`,
        values: valueNames,
      });
    }
  }
  return { markings };
}

function pad(i, count) {
  return String(i).padStart(String(Math.max(count - 1, 0)).length, '0');
}

/** How many values a seed spec makes in total. */
export function seedValues(spec) {
  return spec.reduce((sum, { count, values }) => sum + count * values, 0);
}
