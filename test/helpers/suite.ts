/** What a suite's hooks set, read by its tests: an error if read before the suite started. */
export function started<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('the suite has not started');
  return value;
}
