/**
 * Requests of the mock's journal as text for a terminal (`ksctl mock requests --bodies`,
 * `ksctl mock requests show ID`): a line for the request, then its headers (`>` sent, `<`
 * answered, as curl -v shows them) and bodies, JSON indented; for a described request the
 * envelope opened, what a registration held, and the lines to send it again. Given a width (the
 * terminal's, or 80 in a pipe), every line fits it: a long one goes on under its value (a
 * header's, a JSON key's), and the lines to send it again come last as shell-continued commands
 * that still run. `-o json` is the data, whole, for scripts.
 */
import type {
  JournalEntryWithBodies,
  JournalMessage,
  OpenedDeviceRequest,
  RequestDetail,
} from '../../common/mock/wire.js';
import { columnsOf, fill, foldLine, type Measure, wrapCommand } from '../../common/text/wrap.js';

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

/** Where text goes: a width in terminal columns, and how to measure text that is not ASCII. */
export interface TextFit {
  width: number;
  measure?: Measure;
}

/**
 * The fit for `width`, measuring text in terminal columns (CJK two, accents none): a body shows
 * what its bytes say, which its JSON escapes may hide until it is printed.
 */
export async function textFit(width: number): Promise<TextFit> {
  return { width, measure: (await import('string-width')).default };
}

/**
 * Lines within `width`, each going on under its value: after a header's or a label's name, after
 * a JSON key (inside its string), else under itself.
 */
function fit(text: string, to: TextFit | undefined): string {
  if (to === undefined) return text;
  const { width, measure } = to;
  return text
    .split('\n')
    .flatMap((line) => {
      if (columnsOf(line, measure) <= width) return [line];
      const label =
        /^ *(?:[<>] [^\s:]+: |"(?:[^"\\]|\\.)*": "?|#\d+ {2}|→ |cid |[A-Za-z][\w -]{0,30}: )/.exec(
          line,
        );
      const hang = label?.[0].length ?? /^ *"?/.exec(line)![0].length;
      return foldLine(line, width, hang, measure);
    })
    .join('\n');
}

function messageText(message: JournalMessage, arrow: '>' | '<'): string {
  const headers = Object.entries(message.headers).map(
    ([name, value]) => `${arrow} ${name}: ${value}`,
  );
  return [...headers, indent(bodyText(message))].join('\n');
}

/**
 * The request's line: id, method, path, status, time taken, side, device; where it does not fit,
 * the answer goes on a line of its own under it.
 */
export function requestLine(entry: JournalEntryWithBodies | RequestDetail, to?: TextFit): string {
  const side = entry.device === undefined ? entry.side : `${entry.side} ${entry.device}`;
  const sent = `#${entry.id}  ${entry.time}  ${entry.method} ${entry.path}`;
  const answered = `→ ${entry.status}  ${entry.durationMs} ms  (${side})`;
  const line =
    to === undefined || sent.length + 2 + answered.length <= to.width
      ? `${sent}  ${answered}`
      : `${sent}\n${INDENT.repeat(2)}${answered}`;
  return fit(`${line}\n${INDENT}cid ${entry.cid}`, to);
}

/** Device requests and registrations are sealed: `show` opens them. */
const SEALED = /^\/v2\.\d+\//;

/**
 * One entry with both messages, fitted `to` a width when given; `opens`: say how to see a sealed one
 * opened.
 */
export function requestText(entry: JournalEntryWithBodies, to?: TextFit, opens = true): string {
  const lines = [
    requestLine(entry, to),
    fit(indent(messageText(entry.request, '>')), to),
    fit(indent(messageText(entry.response, '<')), to),
  ];
  if (opens && SEALED.test(entry.path) && entry.request.bytes > 0) {
    lines.push(fit(`${INDENT}(sealed: ksctl mock requests show ${entry.id} opens it)`, to));
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
function replayText(lines: string, to: TextFit | undefined): string {
  if (to === undefined) return indent(lines);
  const room = to.width - INDENT.length;
  return lines
    .split('\n')
    .flatMap((line) =>
      line.startsWith('# ')
        ? fill(line.slice(2), room, { first: '# ', rest: '# ' }).map((l) => INDENT + l)
        : // A body broken inside its quotes goes on in the first column: the shell reads it so.
          wrapCommand(line, room, { pairs: true, split: true, measure: to.measure }).map(
            (l, i, all) => (i === 0 || all[i - 1]!.endsWith(' \\') ? INDENT + l : l),
          ),
    )
    .join('\n');
}

/**
 * A described request: the entry, what was opened, the problems, and the lines to send it again
 * (fitted `to` a width when given).
 */
export function requestDetailText(detail: RequestDetail, to?: TextFit): string {
  const parts = [requestText(detail, to, false)];
  if (detail.opened) parts.push(fit(openedText(detail.opened), to));
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
      fit(
        [
          'Registration package (its STOKEN and UIDAUTH are never shown)',
          ...facts
            .filter(([, v]) => v !== undefined)
            .map(([k, v]) => `${INDENT}${k}: ${String(v)}`),
        ].join('\n'),
        to,
      ),
    );
  }
  if (detail.problems) {
    const problems = ['Could not open:', ...detail.problems.map((p) => `${INDENT}${p}`)];
    parts.push(fit(problems.join('\n'), to));
  }
  parts.push(`Send it again:\n${replayText(`${detail.curl}\n${detail.ksctl}`, to)}`);
  return `${parts.join('\n\n')}\n`;
}
