/**
 * What ksctl needs of the markings answers it reads, checked before use: an answer without them
 * (a proxy's page, another API at the same address) is a clear ServiceError naming the URL, not a
 * crash further on. Only the members ksctl relies on are required; others may come or not.
 */

type Problem = string | undefined;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function valueProblem(value: unknown): Problem {
  if (!isObject(value)) return 'a value is not an object';
  if (typeof value.id !== 'string' || typeof value.name !== 'string') {
    return 'a value lacks its id or name';
  }
  return undefined;
}

export function markingProblem(marking: unknown): Problem {
  if (!isObject(marking)) return 'a marking is not an object';
  if (typeof marking.id !== 'string' || typeof marking.name !== 'string') {
    return 'a marking lacks its id or name';
  }
  if (typeof marking._version !== 'number') return `marking ${marking.name} lacks _version`;
  const detail = marking.detail;
  if (!isObject(detail) || typeof detail.valueCount !== 'number') {
    return `marking ${marking.name} lacks detail.valueCount`;
  }
  if (detail.values === undefined) return undefined;
  if (!Array.isArray(detail.values)) return `detail.values of ${marking.name} is not an array`;
  for (const value of detail.values) {
    const problem = valueProblem(value);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

export function markingsProblem(body: unknown): Problem {
  if (!Array.isArray(body)) return 'not a JSON array of markings';
  for (const marking of body) {
    const problem = markingProblem(marking);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** A list answer `{totalResults, Resources}` whose items pass `item`. */
export function listProblem(item: (value: unknown) => Problem) {
  return (body: unknown): Problem => {
    if (!isObject(body)) return 'not a list answer ({totalResults, Resources})';
    if (typeof body.totalResults !== 'number') return 'totalResults is missing';
    if (!Array.isArray(body.Resources)) return 'Resources is missing';
    for (const resource of body.Resources) {
      const problem = item(resource);
      if (problem !== undefined) return problem;
    }
    return undefined;
  };
}
