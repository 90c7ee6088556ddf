/**
 * What the markings and values commands share below them: NAME[=DESCRIPTION] value lists checked
 * before anything is sent, and changes sent one request at a time that say, when one fails, what
 * was done and what was never sent.
 */
import { descriptionProblem, nameProblem } from '../../common/markings/names.js';
import { quoted } from '../../common/text/words.js';
import { InputError, UsageError } from '../../common/errors.js';
import { quotedNames } from '../../common/text/words.js';

export interface NameAndDescription {
  name: string;
  description?: string;
}

/** NAME and =DESCRIPTION: NAME runs to the first `=` not preceded by a backslash. */
const NAME_AND_DESCRIPTION = /^((?:[^=\\]|\\.)*)(?:=([\s\S]*))?$/;

/**
 * `NAME[=DESCRIPTION]`: split on the first `=` not preceded by a backslash, so a name may contain
 * `\=` (and `\,`, see `refuseLists`).
 */
export function nameAndDescription(text: string): NameAndDescription {
  const m = NAME_AND_DESCRIPTION.exec(text);
  const name = (m?.[1] ?? text).replace(/\\(.)/g, '$1');
  return m?.[2] === undefined ? { name } : { name, description: m[2] };
}

/** Whether NAME (before any =DESCRIPTION) holds a comma without a backslash, as a list would. */
function namesAList(text: string): boolean {
  const raw = NAME_AND_DESCRIPTION.exec(text)?.[1] ?? text;
  return /^(?:[^\\,]|\\.)*,/.test(raw);
}

/**
 * A comma in a value flag's name is refused (exit 2) before anything is sent: `--set-values a,b`
 * would otherwise be one value "a,b" and remove "a" and "b". `\,` means a comma.
 */
function refuseLists(texts: readonly string[], flag: string): void {
  const listed = texts.find(namesAList);
  if (listed === undefined) return;
  const names = nameAndDescription(listed)
    .name.split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const repeated = names.map((name) => `${flag} ${shellWord(name)}`).join(' ');
  throw new UsageError(
    `${flag} ${quoted(listed)}: one flag takes one value, not a list; nothing was sent`,
    {
      hint:
        (names.length > 1 ? `repeat the flag for each value: ${repeated}; ` : '') +
        `write \\, for a comma that is part of the name`,
    },
  );
}

/** A word as typed into a shell: quoted when it holds anything but plain characters. */
function shellWord(word: string): string {
  return /^[\w.@%+:/-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * Values from NAME[=DESCRIPTION] options, checked before anything is sent. A flag (`--value`, not
 * the arguments of `values add`) takes one value each: a comma in a name is refused.
 */
export function parseValueOptions(texts: string[] | undefined, flag: string): NameAndDescription[] {
  if (flag.startsWith('--')) refuseLists(texts ?? [], flag);
  const values = (texts ?? []).map(nameAndDescription);
  const problems = values.flatMap((v) => {
    const path = `${flag} ${quoted(v.name)}`;
    const problem = nameProblem(v.name);
    const description = v.description === undefined ? undefined : descriptionProblem(v.description);
    return [
      ...(problem ? [{ path, message: `value name ${problem}` }] : []),
      ...(description ? [{ path, message: `the value's description ${description}` }] : []),
    ];
  });
  const seen = new Set<string>();
  for (const v of values) {
    if (seen.has(v.name))
      problems.push({ path: `${flag} ${quoted(v.name)}`, message: 'given twice' });
    seen.add(v.name);
  }
  if (problems.length > 0)
    throw new InputError('invalid values; nothing was sent', { details: problems });
  return values;
}

/**
 * A `--description` flag checked before anything is sent, the message naming the flag and whose
 * description it is (`of` names it: `marking "region"`).
 */
export function checkDescriptionFlag(description: string | undefined, of: string): void {
  const problem = description === undefined ? undefined : descriptionProblem(description);
  if (problem) {
    throw new InputError(`--description: the description of ${of} ${problem}; nothing was sent`);
  }
}

/**
 * Runs one request per item, in order. When one fails, `report` hears what was done, which item
 * failed and what was never sent; then the error goes on.
 */
export async function runInOrder<T>(
  items: readonly T[],
  run: (item: T) => Promise<unknown>,
  report: (done: T[], failed: T, notSent: T[]) => void,
): Promise<void> {
  let done = 0;
  try {
    for (const item of items) {
      await run(item);
      done++;
    }
  } catch (error) {
    report(items.slice(0, done), items[done]!, items.slice(done + 1));
    throw error;
  }
}

/**
 * Deletions sent one request each, in order. When one fails, says which were deleted and which
 * were not sent (even with --quiet), then rethrows its error.
 */
export async function deleteInTurn(
  warn: (text: string) => void,
  items: { name: string; run: () => Promise<void> }[],
  what: string,
): Promise<void> {
  const names = (list: typeof items) => quotedNames(list.map((item) => item.name));
  await runInOrder(
    items,
    (item) => item.run(),
    (done, failed, rest) => {
      if (items.length === 1) return;
      warn(
        `${done.length === 0 ? `no ${what} were deleted` : `deleted ${names(done)}`}; failed: ${names([failed])}` +
          (rest.length > 0 ? `; not sent: ${names(rest)}` : ''),
      );
    },
  );
}
