/**
 * "Did you mean": the known word a mistyped one most likely meant, for every place that names
 * what it does not know (commands, markings-file keys, filter fields, query parameters).
 */

/** The allowed word a mistyped one most likely meant: same letters in another case, or one edit. */
export function closest(word: string, allowed: readonly string[]): string | undefined {
  // Edit distance costs the product of the lengths: a word of thousands of characters is no typo.
  if (word.length > 64) return undefined;
  const lower = word.toLowerCase();
  return (
    allowed.find((candidate) => candidate.toLowerCase() === lower) ??
    allowed.find((candidate) => editDistance(candidate.toLowerCase(), lower) <= 2)
  );
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
