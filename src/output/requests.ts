/**
 * Requests of the mock's journal as text for a terminal (`ksctl mock requests --bodies`,
 * `ksctl mock requests show ID`): a line for the request, then its headers (`>` sent, `<`
 * answered, as curl -v shows them) and bodies, JSON indented; for a described request the
 * envelope opened, what a registration held, and the lines to send it again.
 */
import type {
  JournalEntryWithBodies,
  JournalMessage,
  OpenedDeviceRequest,
  RequestDetail,
} from '../mock/wire.js';
import { fill, wrapCommand } from './wrap.js';

const INDENT = '  ';

function indent(text: string, prefix = INDENT): string {
  return text
    .split('\n')
    .map((line) => (line === '' ? '' : prefix + line))
    .join('\n');
}

function json(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? String(value);
}

function sizeText(bytes: number): string {
  return bytes < 1024 ? `${bytes} bytes` : `${(bytes / 1024).toFixed(1)} KiB`;
}

/** A body for reading: JSON indented when it is whole JSON, else as it was kept. */
function bodyText(message: JournalMessage): string {
  if (message.dropped) {
    return `(${sizeText(message.bytes)}: let go to keep the journal within its bytes)`;
  }
  if (message.bytes === 0) return '(no body)';
  if (message.withheld !== undefined) {
    return `(${sizeText(message.bytes)}, ${message.withheld}: not kept, as it could not be scrubbed of secrets safely)`;
  }
  if (message.encoding === 'base64') {
    return `(${sizeText(message.bytes)} of binary data; -o json shows it in Base64)`;
  }
  let shown = message.body;
  if (!message.truncated) {
    try {
      shown = json(JSON.parse(message.body));
    } catch {
      // not JSON: as it was sent
    }
  }
  const cut = message.truncated
    ? `\n… (the first ${sizeText(Buffer.byteLength(message.body))} of ${sizeText(message.bytes)})`
    : '';
  return shown + cut;
}

function messageText(message: JournalMessage, arrow: '>' | '<'): string {
  const headers = Object.entries(message.headers).map(
    ([name, value]) => `${arrow} ${name}: ${value}`,
  );
  return [...headers, indent(bodyText(message))].join('\n');
}

/** The request's line: id, method, path, status, time taken, side, device. */
export function requestLine(entry: JournalEntryWithBodies | RequestDetail): string {
  const side = entry.device === undefined ? entry.side : `${entry.side} ${entry.device}`;
  return `#${entry.id}  ${entry.time}  ${entry.method} ${entry.path}  → ${entry.status}  ${entry.durationMs} ms  (${side})\n${INDENT}cid ${entry.cid}`;
}

/** Device requests and registrations are sealed: `show` opens them. */
const SEALED = /^\/v2\.\d+\//;

/** One entry with both messages; `opens`: say how to see a sealed one opened. */
export function requestText(entry: JournalEntryWithBodies, opens = true): string {
  const lines = [
    requestLine(entry),
    indent(messageText(entry.request, '>')),
    indent(messageText(entry.response, '<')),
  ];
  if (opens && SEALED.test(entry.path) && entry.request.bytes > 0) {
    lines.push(`${INDENT}(sealed: ksctl mock requests show ${entry.id} opens it)`);
  }
  return lines.join('\n');
}

function openedText(opened: OpenedDeviceRequest): string {
  const lines = [
    `Envelope opened (${opened.dialect}) with ${opened.keyId}`,
    `${INDENT}cid ${opened.cid}`,
  ];
  if (opened.clear !== undefined)
    lines.push(`${INDENT}request:`, indent(json(opened.clear), INDENT.repeat(2)));
  if (opened.answer !== undefined)
    lines.push(`${INDENT}answer:`, indent(json(opened.answer), INDENT.repeat(2)));
  if (opened.sealedError) {
    const { code, meaning, message, hint } = opened.sealedError;
    lines.push(`${INDENT}sealed error ${code}: ${meaning}`);
    if (message !== undefined && message !== meaning)
      lines.push(`${INDENT}${INDENT}message: ${message}`);
    if (hint !== undefined) lines.push(`${INDENT}${INDENT}hint: ${hint}`);
  }
  return lines.join('\n');
}

/**
 * Lines to send a request again, indented; with a width (a terminal's), each command broken
 * between words with ` \` so it still runs when copied, and each note filled as comments. A
 * quoted body stays one word: it comes last, where a long one harms nothing after it.
 */
function replayText(lines: string, width: number | undefined): string {
  if (width === undefined) return indent(lines);
  const room = width - INDENT.length;
  return lines
    .split('\n')
    .flatMap((line) =>
      line.startsWith('# ')
        ? fill(line.slice(2), room, { first: '# ', rest: '# ' })
        : wrapCommand(line, room),
    )
    .map((line) => INDENT + line)
    .join('\n');
}

/**
 * A described request: the entry, what was opened, the problems, and the lines to send it again
 * (fitted to `width` when given).
 */
export function requestDetailText(detail: RequestDetail, width?: number): string {
  const parts = [requestText(detail, false)];
  if (detail.opened) parts.push(openedText(detail.opened));
  if (detail.enrollment) {
    const e = detail.enrollment;
    const facts: [string, unknown][] = [
      ['keyspace', e.keyspace],
      ['device key', e.keyBits === undefined ? undefined : `RSA ${e.keyBits} bits`],
      [
        'signature',
        e.signatureValid === undefined ? undefined : e.signatureValid ? 'valid' : 'INVALID',
      ],
      ['user', e.user],
      ['device', e.deviceId],
      ['refused', e.cause === undefined ? undefined : `${e.cause.code}: ${e.cause.meaning}`],
    ];
    parts.push(
      [
        'Registration package (its STOKEN and UIDAUTH are never shown)',
        ...facts.filter(([, v]) => v !== undefined).map(([k, v]) => `${INDENT}${k}: ${String(v)}`),
      ].join('\n'),
    );
  }
  if (detail.problems) {
    parts.push(['Could not open:', ...detail.problems.map((p) => `${INDENT}${p}`)].join('\n'));
  }
  parts.push(`Send it again:\n${replayText(`${detail.curl}\n${detail.ksctl}`, width)}`);
  return `${parts.join('\n\n')}\n`;
}
