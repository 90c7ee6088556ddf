/**
 * The identity token `AUTH` = Base64(STOKEN + UIDAUTH), built by the client and split by the
 * server. STOKEN begins with `I.`, UIDAUTH with `,I`, so the token reads `I.<…>,I<…>`.
 * The vendor's sample clients join STOKEN and a UIDAUTH with `","` even when the UIDAUTH
 * already has its comma, so the server side accepts one comma or two (docs/design.md 2).
 */
import { InputError } from '../errors.js';
import { decodeBase64Strict, decodeUtf8Strict } from '../encoding/base64.js';

export const STOKEN_PREFIX = 'I.';
export const UIDAUTH_PREFIX = ',I';

const TOKEN_HINT = {
  cli: 'copy it whole from your enrollment portal, or get a fresh token pair with ksctl mock tokens --user NAME',
  code: "copy it whole from your enrollment portal, or get a fresh token pair from a mock's mintTokens()",
};

/**
 * Builds AUTH from the portal's values. Surrounding whitespace (a trailing newline from a file)
 * is dropped; a UIDAUTH given without its leading comma gets it back, so exactly one comma is
 * sent. Messages name the rule broken, never the values: they are secrets.
 */
export function makeAuth(stoken: string, uidauth: string): string {
  const s = stoken.trim();
  const problem = stokenProblem(s);
  if (problem !== undefined) throw new InputError(`the STOKEN ${problem}`, { hint: TOKEN_HINT });
  const u = withLeadingComma(uidauth.trim());
  if (!u.startsWith(UIDAUTH_PREFIX) || u.length === UIDAUTH_PREFIX.length) {
    throw new InputError(
      `the UIDAUTH must begin with "${UIDAUTH_PREFIX}" (or "I" without the comma) and carry a value`,
      { hint: TOKEN_HINT },
    );
  }
  return Buffer.from(s + u, 'utf8').toString('base64');
}

/**
 * What is wrong with a STOKEN (or the e-mailed registration code that stands for one), in words
 * that follow its name; undefined when nothing is.
 */
export function stokenProblem(stoken: string): string | undefined {
  if (!stoken.startsWith(STOKEN_PREFIX) || stoken.length === STOKEN_PREFIX.length) {
    return `must begin with "${STOKEN_PREFIX}" and carry a value`;
  }
  // The service splits AUTH at the first comma, so a comma inside STOKEN would corrupt both.
  if (stoken.includes(',')) return 'must not contain a comma';
  return undefined;
}

function withLeadingComma(uidauth: string): string {
  return uidauth.startsWith('I') ? `,${uidauth}` : uidauth;
}

/**
 * Splits AUTH into STOKEN and UIDAUTH (normalised to one leading comma), or returns undefined
 * when it is not strict Base64 of UTF-8 text of the form `I.<…>,I<…>` or `I.<…>,,I<…>`.
 * STOKEN holds no comma, so the first comma ends it.
 */
export function splitAuth(auth: string): { stoken: string; uidauth: string } | undefined {
  const bytes = decodeBase64Strict(auth);
  const token = bytes === undefined ? undefined : decodeUtf8Strict(bytes);
  if (token === undefined) return undefined;
  const comma = token.indexOf(',');
  if (comma < 0) return undefined;
  const stoken = token.slice(0, comma);
  const rest = token.slice(comma + 1);
  const uidauth = `,${rest.startsWith(',') ? rest.slice(1) : rest}`;
  const valid =
    stoken.startsWith(STOKEN_PREFIX) &&
    stoken.length > STOKEN_PREFIX.length &&
    uidauth.startsWith(UIDAUTH_PREFIX) &&
    uidauth.length > UIDAUTH_PREFIX.length;
  return valid ? { stoken, uidauth } : undefined;
}
