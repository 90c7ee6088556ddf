// @ts-check
/**
 * One request of the mock's journal, opened on the Requests page: its facts, headers and both
 * bodies, the envelope opened for a device request, an enrollment's package facts, and copyable
 * curl and ksctl lines to send it again.
 */
import { recording } from './api.js';
import { bytes, codeLine, facts, h, statusBadge, table, when } from './dom.js';
import { took } from './format.js';
import { jsonView } from './json-view.js';

/** @typedef {import('../../src/common/mock/wire.js').RequestDetail} RequestDetail */
/** @typedef {import('../../src/common/mock/wire.js').OpenedDeviceRequest} OpenedDeviceRequest */
/** @typedef {import('../../src/common/mock/wire.js').EnrollmentDetail} EnrollmentDetail */
/** @typedef {import('../../src/common/mock/wire.js').JournalMessage} JournalMessage */

/**
 * What the detail pane shows of request `d` (GET /_mock/requests/{id}), in order, with `close`
 * beside its heading; the heading is returned too, to be focused once shown.
 * @param {RequestDetail} d
 * @param {HTMLElement} close
 */
export function requestDetail(d, close) {
  const heading = h(
    'h2',
    { tabindex: -1 },
    h('span', { class: 'method' }, d.method),
    ' ',
    h('span', { class: 'path' }, d.path),
  );
  const parts = [
    h('div', { class: 'detail-head' }, heading, close),
    facts([
      ['Status', statusBadge(d.status)],
      ['Time', when(d.time)],
      ['Side', d.side],
      ['Took', took(d.durationMs)],
      ['Conversation id', d.cid ? h('code', {}, d.cid) : undefined],
      [
        'Device',
        // A recorder has no Devices page: the id only.
        d.device
          ? recording() === undefined
            ? h('a', { href: `#/devices/${encodeURIComponent(d.device)}`, class: 'mono' }, d.device)
            : h('code', {}, d.device)
          : undefined,
      ],
    ]),
    d.problems?.length
      ? h(
          'ul',
          { class: 'problems', role: 'note' },
          d.problems.map((p) => h('li', {}, p)),
        )
      : null,
    d.opened ? openedSection(d.opened) : null,
    d.enrollment ? enrollmentSection(d.enrollment) : null,
    h('h3', {}, 'Send it again'),
    d.curl ? codeLine('Copy curl', d.curl) : null,
    d.ksctl ? codeLine('Copy ksctl api', d.ksctl) : null,
    messageSection('Request', d.request),
    messageSection('Answer', d.response),
  ];
  return { heading, parts };
}

/** @param {OpenedDeviceRequest} opened */
function openedSection(opened) {
  return h(
    'section',
    { class: 'opened', 'aria-labelledby': 'opened-title' },
    h('h3', { id: 'opened-title' }, 'Envelope opened'),
    facts([
      ['Conversation id', opened.cid ? h('code', {}, opened.cid) : undefined],
      ['Opened with', opened.keyId ? h('code', {}, opened.keyId) : undefined],
      ['Device', opened.deviceId ? h('code', {}, opened.deviceId) : undefined],
      ['Dialect', opened.dialect],
    ]),
    opened.sealedError
      ? h(
          'div',
          { class: 'sealed-error', role: 'note' },
          h(
            'p',
            {},
            h('strong', {}, `Sealed error ${opened.sealedError.code}`),
            `: ${opened.sealedError.meaning}`,
          ),
          opened.sealedError.message
            ? h('p', {}, `The answer said: ${opened.sealedError.message}`)
            : null,
          opened.sealedError.hint ? h('p', {}, opened.sealedError.hint) : null,
        )
      : null,
    opened.clear !== undefined
      ? [
          h('h4', {}, 'What the device sent, in clear'),
          jsonView(opened.clear, 'The request envelope in clear'),
        ]
      : null,
    opened.answer !== undefined
      ? [
          h('h4', {}, 'What the mock answered, in clear'),
          jsonView(opened.answer, 'The answer envelope in clear'),
        ]
      : null,
  );
}

/** @param {EnrollmentDetail} e */
function enrollmentSection(e) {
  return h(
    'section',
    { 'aria-labelledby': 'enroll-title' },
    h('h3', { id: 'enroll-title' }, 'Enrollment package'),
    facts([
      ['Key size', e.keyBits ? `${e.keyBits} bits` : undefined],
      [
        'Signature',
        e.signatureValid === undefined ? undefined : e.signatureValid ? 'valid' : 'NOT valid',
      ],
      ['User', e.user],
      ['Keyspace', e.keyspace],
      ['Device made', e.deviceId ? h('code', {}, e.deviceId) : undefined],
      ['Refused with', e.cause ? `${e.cause.code}: ${e.cause.meaning}` : undefined],
    ]),
  );
}

/**
 * @param {string} title
 * @param {JournalMessage | undefined} message
 */
function messageSection(title, message) {
  if (!message) return null;
  const id = `msg-${title.toLowerCase()}`;
  const headers = Object.entries(message.headers ?? {});
  return h(
    'section',
    { 'aria-labelledby': id },
    h('h3', { id }, title),
    table(
      `${title} headers`,
      [
        { title: 'Header', cell: ([k]) => k, class: 'mono' },
        { title: 'Value', cell: ([, v]) => v, class: 'wrap mono' },
      ],
      headers,
      { empty: 'No headers.' },
    ),
    h(
      'p',
      { class: 'body-size muted' },
      `Body: ${bytes(message.bytes ?? 0)}`,
      message.truncated ? ', the first 64 KiB shown' : '',
      message.encoding === 'base64' ? ', binary, shown as Base64' : '',
    ),
    messageBody(title, message),
  );
}

/**
 * A message's body: JSON shown as JSON, other text as it is, binary in Base64; or why not.
 * @param {string} title
 * @param {JournalMessage} message
 */
function messageBody(title, message) {
  /** @type {HTMLElement} */
  let body;
  if (message.withheld)
    body = h(
      'p',
      { class: 'muted' },
      `Not kept: it could not be scrubbed of secrets safely. Its digest: ${message.withheld}.`,
    );
  else if (!message.body) body = h('p', { class: 'muted' }, 'No body.');
  else if (message.encoding === 'base64')
    body = h(
      'div',
      { class: 'scroll', role: 'region', tabindex: 0, 'aria-label': `${title} body, Base64` },
      h('pre', {}, message.body),
    );
  else {
    /** @type {unknown} */
    let parsed;
    try {
      parsed = message.truncated ? undefined : JSON.parse(message.body);
    } catch {
      parsed = undefined;
    }
    body =
      parsed === undefined
        ? h(
            'div',
            { class: 'scroll', role: 'region', tabindex: 0, 'aria-label': `${title} body` },
            h('pre', {}, message.body),
          )
        : jsonView(parsed, `${title} body`);
  }
  return body;
}
