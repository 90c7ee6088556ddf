// @ts-check
/** The Tokens page's data: minting a token pair, and the outbox of registration codes. */
import { api, get } from './api.js';

/** @typedef {import('../../src/common/mock/wire.js').ConsoleTokenPair} ConsoleTokenPair */
/** @typedef {import('../../src/common/mock/wire.js').ConsoleOutboxMessage} ConsoleOutboxMessage */

/**
 * What the mint form asks for: the user, and the keyspace when one was typed.
 * @param {string} user
 * @param {string} keyspace
 * @returns {{ user: string, keyspace?: string }}
 */
export function mintBody(user, keyspace) {
  /** @type {{ user: string, keyspace?: string }} */
  const body = { user: user.trim() };
  if (keyspace.trim()) body.keyspace = keyspace.trim();
  return body;
}

/** @param {{ user: string, keyspace?: string }} body */
export const mint = async (body) =>
  /** @type {ConsoleTokenPair} */ (await api('POST', 'tokens', body));

/**
 * The outbox's messages, newest first, whichever shape the answer has (a list, or one under
 * messages or outbox).
 * @param {unknown} answer
 * @returns {ConsoleOutboxMessage[]}
 */
export function outboxMessages(answer) {
  const shaped =
    /** @type {{ messages?: ConsoleOutboxMessage[], outbox?: ConsoleOutboxMessage[] } | undefined} */ (
      answer
    );
  const messages = Array.isArray(answer) ? answer : (shaped?.messages ?? shaped?.outbox ?? []);
  return [...messages].reverse();
}

export const readOutbox = async () => outboxMessages(await get('outbox'));
