/**
 * Finds where and why a JSON text is invalid. `JSON.parse` says only "at position N" for some
 * errors and nothing at all for others ("Unexpected token"), and the YAML parser accepts much that
 * JSON does not (single quotes, trailing commas, bare words), so a JSON file gets this check before
 * it is read as YAML for positions. Only called after `JSON.parse` failed.
 */
export interface JsonSyntaxError {
  offset: number;
  reason: string;
}

class JsonScanError extends Error {
  constructor(
    readonly offset: number,
    reason: string,
  ) {
    super(reason);
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
// JSON strings must not hold raw control characters; this stops at them.
const STRING_CHAR = /[^"\\\u0000-\u001f]*/y;
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y;
const WHITE_SPACE = /[ \t\n\r]*/y;

export function findJsonSyntaxError(text: string): JsonSyntaxError | undefined {
  let at = 0;

  const fail = (reason: string, offset = at): never => {
    throw new JsonScanError(offset, reason);
  };
  const match = (pattern: RegExp): string | undefined => {
    pattern.lastIndex = at;
    const found = pattern.exec(text);
    if (found === null) return undefined;
    at += found[0].length;
    return found[0];
  };
  const skipWhiteSpace = () => match(WHITE_SPACE);
  const describe = (): string => {
    const ch = text[at];
    if (ch === undefined) return 'the text ends';
    if (ch === "'") return "found ' (JSON strings use double quotes)";
    return `found ${JSON.stringify(ch)}`;
  };

  const string = () => {
    at += 1; // opening quote
    for (;;) {
      match(STRING_CHAR);
      const ch = text[at];
      if (ch === '"') {
        at += 1;
        return;
      }
      if (ch === undefined) fail('unterminated string');
      if (ch === '\\') {
        if (match(ESCAPE) === undefined) fail('invalid escape sequence in string');
        continue;
      }
      fail('control character in string (write it as an escape such as \\n)');
    }
  };

  const value = (): void => {
    skipWhiteSpace();
    const ch = text[at];
    if (ch === '{') object();
    else if (ch === '[') array();
    else if (ch === '"') string();
    else if (!literal() && match(NUMBER) === undefined) fail(`expected a value, ${describe()}`);
  };

  const literal = (): boolean => {
    const word = ['true', 'false', 'null'].find((candidate) => text.startsWith(candidate, at));
    if (word !== undefined) at += word.length;
    return word !== undefined;
  };

  const members = (close: '}' | ']', member: () => void, what: string) => {
    at += 1; // opening bracket
    skipWhiteSpace();
    if (text[at] === close) {
      at += 1;
      return;
    }
    for (;;) {
      member();
      skipWhiteSpace();
      if (text[at] === close) {
        at += 1;
        return;
      }
      if (text[at] !== ',') fail(`expected ',' or '${close}' after ${what}, ${describe()}`);
      const comma = at;
      at += 1;
      skipWhiteSpace();
      if (text[at] === close) fail('trailing comma is not allowed in JSON', comma);
    }
  };

  const object = () =>
    members(
      '}',
      () => {
        skipWhiteSpace();
        if (text[at] !== '"') fail(`expected a property name in double quotes, ${describe()}`);
        string();
        skipWhiteSpace();
        if (text[at] !== ':') fail(`expected ':' after the property name, ${describe()}`);
        at += 1;
        value();
      },
      'a property',
    );
  const array = () => members(']', value, 'an element');

  try {
    value();
    skipWhiteSpace();
    if (at < text.length) fail(`unexpected text after the end of the JSON value, ${describe()}`);
    return undefined;
  } catch (error) {
    if (error instanceof JsonScanError) return { offset: error.offset, reason: error.message };
    throw error;
  }
}
