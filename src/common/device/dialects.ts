/**
 * What differs between the two dialects of the device request format (docs/design.md 2.4,
 * spec/device-requests-sdks.md), in one place for ksctl and the mock: the AADs that bind a data
 * key and a signature to their conversation, and the `sigs` of a modify answer.
 *
 * | what | v2.3 | v2.4 |
 * |---|---|---|
 * | cid | 4 parts | 5 parts, `…|2.4.0` |
 * | key in a create answer | cid:ref:id[:csig] | cid:ref:id[:csig][:msig] (the request's sigs) |
 * | key in a fetch answer | cid:id[:csig] | cid:id[:csig][:msig] (the answer's sigs) |
 * | `csig` of a create ref | cid:ref | cid:ref |
 * | `msig` of a create ref | (none) | cid:m:ref |
 * | `msig` of a modify | (no modify) | cid:m:id, plus `:force` when forced |
 * | per-key failures of fetch/modify | inner `error`, keyed by id | `data.errorMap` |
 *
 * An absent signature is left out of an AAD (the Java SDK skips null parts); the mock never
 * answers an empty one, so the JS SDK, which skips empty parts, agrees.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { decodeBase64Strict } from '../encoding/base64.js';
import type { ApiVersion } from './api-version.js';

function join(...parts: (string | undefined)[]): string {
  return parts.filter((part) => part !== undefined).join(':');
}

/** AAD of a create ref's `csig` (`cid:ref`) or `msig` (`cid:m:ref`). */
export function createSignatureAad(cid: string, ref: string, mutable: boolean): string {
  return mutable ? join(cid, 'm', ref) : join(cid, ref);
}

/** AAD of a modify item's `msig`: `cid:m:id`, and `:force` when the change is forced. */
export function modifySignatureAad(cid: string, id: string, force: boolean): string {
  return join(cid, 'm', id, force ? 'force' : undefined);
}

/** AAD of a data key in a create answer. */
export function createdKeyAad(
  version: ApiVersion,
  cid: string,
  ref: string,
  id: string,
  csig: string | undefined,
  msig: string | undefined,
): string {
  return version === '2.3' ? join(cid, ref, id, csig) : join(cid, ref, id, csig, msig);
}

/** AAD of a data key in a fetch answer. */
export function fetchedKeyAad(
  version: ApiVersion,
  cid: string,
  id: string,
  csig: string | undefined,
  msig: string | undefined,
): string {
  return version === '2.3' ? join(cid, id, csig) : join(cid, id, csig, msig);
}

/** What a modify answer's `sigs` signs: `<id>:<prevcsig>,<csig>,<prevmsig>,<msig>` as sent. */
export function modifySigsText(
  id: string,
  sent: { prevcsig?: string; csig?: string; prevmsig?: string; msig: string },
): string {
  const values = [sent.prevcsig, sent.csig, sent.prevmsig, sent.msig].map((v) => v ?? '');
  return `${id}:${values.join(',')}`;
}

/** A modify answer's `sigs`: Base64 HMAC-SHA256 keyed with SEP.CD:KS. */
export function modifySigs(ksKey: Buffer, text: string): string {
  return createHmac('sha256', ksKey).update(text, 'utf8').digest('base64');
}

export function checkModifySigs(ksKey: Buffer, text: string, sigs: string): boolean {
  const given = decodeBase64Strict(sigs);
  const expected = createHmac('sha256', ksKey).update(text, 'utf8').digest();
  return (
    given !== undefined && given.length === expected.length && timingSafeEqual(given, expected)
  );
}
