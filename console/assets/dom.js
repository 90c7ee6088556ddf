// @ts-check
/**
 * Building the page: h() makes elements whose text is always set as text (never parsed as
 * HTML), so a value from a request can never become markup. Small helpers for what every page
 * shows: tables, facts, alerts, dialogs, copy buttons, times and sizes.
 */

export { bytes, clockText, count } from './format.js';

/** @typedef {Node | string | number | null | undefined | false} Leaf */
/**
 * What h() and fill() take as children: nodes, text, nothing, or arrays of them (two deep).
 * @typedef {Leaf | Leaf[] | Leaf[][]} Child
 */
/** @typedef {Record<string, unknown>} Attrs */

/**
 * h('button', { class: 'x', onclick: fn, 'aria-label': 'Close' }, 'text', child, [more]).
 * Attributes starting with "on" become listeners; true/false toggle boolean attributes; null and
 * undefined are left out. Children are nodes or strings (as text), nested arrays flattened.
 */
/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Attrs | null} [attrs]
 * @param {Child[]} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      el.addEventListener(name.slice(2), /** @type {EventListener} */ (value));
    } else if (name === 'value' && 'value' in el) {
      el.value = String(value);
    } else if (name === 'checked' && el instanceof HTMLInputElement) {
      el.checked = Boolean(value);
    } else {
      el.setAttribute(name, value === true ? '' : String(value));
    }
  }
  append(el, children);
  return el;
}

/**
 * Appends children (see Child) to an element.
 * @template {Element} E
 * @param {E} el
 * @param {Child[]} children
 * @returns {E}
 */
export function append(el, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/**
 * Replaces an element's children.
 * @template {Element} E
 * @param {E} el
 * @param {Child[]} children
 */
export function fill(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

let ids = 0;
/** A fresh id for label/aria wiring. */
export function uid(prefix = 'id') {
  ids += 1;
  return `${prefix}-${ids}`;
}

/**
 * A field's input: what field() made for its tag (the value and checked of each are there).
 * @typedef {HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement} FieldInput
 */
/**
 * The attributes of field(): tag (input, select, textarea), a select's options ([value, text]
 * or text), and the input's own attributes.
 * @typedef {Attrs & { tag?: 'input' | 'select' | 'textarea', options?: (string | [string, string])[] }} FieldAttrs
 */

/**
 * A labelled form field: { wrap, input }. Extra attributes go on the input.
 * @param {string} label
 * @param {FieldAttrs} [attrs]
 * @param {string} [hint]
 * @returns {{ wrap: HTMLDivElement, input: HTMLInputElement }}
 */
export function field(label, attrs = {}, hint) {
  const id = typeof attrs.id === 'string' ? attrs.id : uid('f');
  const hintId = hint ? `${id}-hint` : undefined;
  const tag = attrs.tag ?? 'input';
  const { tag: _tag, options, ...rest } = attrs;
  // Typed as an input: a select and a textarea have the value it is read for.
  const input = /** @type {HTMLInputElement} */ (
    h(tag, { id, name: id, ...rest, 'aria-describedby': hintId })
  );
  if (tag === 'select') {
    for (const option of options ?? []) {
      const [value, text] = Array.isArray(option) ? option : [option, option];
      input.append(h('option', { value }, text));
    }
    if (rest.value !== undefined) input.value = String(rest.value);
  }
  const wrap = h(
    'div',
    { class: rest.type === 'checkbox' ? 'field check' : 'field' },
    rest.type === 'checkbox'
      ? [input, h('label', { for: id }, label)]
      : [h('label', { for: id }, label), input],
    hint ? h('p', { class: 'hint', id: hintId }, hint) : null,
  );
  return { wrap, input };
}

/**
 * A column of table(): its title, the cell of a row, and a class for its cells.
 * @template R
 * @typedef {{ title: string, cell: (row: R) => Child, class?: string }} Column
 */

/**
 * A table in a scrollable region (focusable, so a keyboard can scroll it).
 * @template R
 * @param {string} caption
 * @param {Column<R>[]} columns
 * @param {R[]} rows
 * @param {{ empty?: string, rowAttrs?: (row: R) => Attrs }} [options]
 */
export function table(caption, columns, rows, { empty = 'Nothing yet.', rowAttrs } = {}) {
  const tbody = h('tbody');
  const t = h(
    'table',
    { class: 'cards' },
    h('caption', { class: 'visually-hidden' }, caption),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        columns.map((c) => h('th', { scope: 'col', class: c.class }, c.title)),
      ),
    ),
    tbody,
  );
  if (rows.length === 0) {
    tbody.append(h('tr', {}, h('td', { colspan: columns.length, class: 'empty' }, empty)));
  }
  for (const row of rows) {
    tbody.append(
      h(
        'tr',
        rowAttrs?.(row) ?? {},
        columns.map((c) => h('td', { class: c.class, 'data-label': c.title }, c.cell(row))),
      ),
    );
  }
  return h('div', { class: 'table-wrap', role: 'region', 'aria-label': caption, tabindex: 0 }, t);
}

/**
 * A definition list of [term, value] pairs; values that are undefined are left out.
 * @param {[string, Child][]} pairs
 */
export function facts(pairs) {
  return h(
    'dl',
    { class: 'facts' },
    pairs
      .filter(([, v]) => v !== undefined && v !== null && v !== '')
      .map(([term, value]) => h('div', {}, h('dt', {}, term), h('dd', {}, value))),
  );
}

/**
 * Where a page shows what the API said went wrong: its message, its details (path: message)
 * and the conversation id to quote. role=alert so a screen reader hears it.
 */
export function errorBox() {
  const box = h('div', { class: 'error-box', role: 'alert', hidden: true });
  return {
    el: box,
    /** @param {unknown} error an ApiError, or any error */
    show(error) {
      const { message, details, cid } = errorParts(error);
      fill(
        box,
        h('p', { class: 'error-message' }, message),
        details.length
          ? h(
              'ul',
              {},
              details.map((d) =>
                h(
                  'li',
                  {},
                  d.path ? h('code', {}, d.path) : null,
                  d.path ? ': ' : '',
                  d.message ?? '',
                ),
              ),
            )
          : null,
        cid ? h('p', { class: 'hint' }, `Conversation id ${cid}`) : null,
      );
      box.hidden = false;
    },
    clear() {
      box.replaceChildren();
      box.hidden = true;
    },
  };
}

/** @typedef {{ path?: string, message?: string }} ErrorDetail */

/**
 * What an error box shows of an error: an ApiError's message, details and conversation id.
 * @param {unknown} error
 * @returns {{ message: string, details: ErrorDetail[], cid?: string }}
 */
function errorParts(error) {
  if (typeof error !== 'object' || error === null) return { message: String(error), details: [] };
  const { message, details, cid } =
    /** @type {{ message?: string, details?: ErrorDetail[], cid?: string }} */ (error);
  return { message: message ?? String(error), details: details ?? [], cid };
}

/** A polite live region for short confirmations ("Copied", "Saved"). */
const status = () => document.getElementById('status-live');
/** @param {string} text */
export function announce(text) {
  const el = status();
  if (!el) return;
  el.textContent = '';
  // A fresh text node is what screen readers announce again, even when the words repeat.
  requestAnimationFrame(() => (el.textContent = text));
}

/**
 * Copies text; a non-secure origin (a --host address) falls back to a selected textarea.
 * @param {string} text
 */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const area = h('textarea', { class: 'visually-hidden', 'aria-hidden': 'true', tabindex: -1 });
    area.value = text;
    document.body.append(area);
    area.select();
    document.execCommand('copy');
    area.remove();
  }
  announce('Copied');
}

/**
 * A button that copies text() and says so.
 * @param {string} label
 * @param {string | (() => string)} text
 */
export function copyButton(label, text) {
  const button = h(
    'button',
    {
      type: 'button',
      class: 'quiet small',
      onclick: async () => {
        await copyText(typeof text === 'function' ? text() : text);
        const before = button.textContent;
        button.textContent = 'Copied';
        setTimeout(() => (button.textContent = before), 1200);
      },
    },
    label,
  );
  return button;
}

/**
 * A line of code with a copy button.
 * @param {string} label
 * @param {string} text
 */
export function codeLine(label, text) {
  return h(
    'div',
    { class: 'code-line' },
    h('pre', { tabindex: 0 }, h('code', {}, text)),
    copyButton(label, text),
  );
}

/**
 * Asks first: a modal <dialog> with the question and two buttons; resolves true when confirmed.
 * Escape and Cancel resolve false; focus returns to where it was.
 * @param {string} question
 * @param {{ confirm?: string, detail?: string }} [options]
 * @returns {Promise<boolean>}
 */
export function confirmDialog(question, { confirm = 'Remove', detail } = {}) {
  return new Promise((resolve) => {
    const titleId = uid('dlg');
    const dialog = h(
      'dialog',
      { class: 'confirm', 'aria-labelledby': titleId },
      h(
        'form',
        { method: 'dialog' },
        h('h2', { id: titleId }, question),
        detail ? h('p', {}, detail) : null,
        h(
          'div',
          { class: 'actions' },
          h('button', { type: 'submit', value: 'cancel', class: 'quiet' }, 'Cancel'),
          h('button', { type: 'submit', value: 'confirm', class: 'danger' }, confirm),
        ),
      ),
    );
    const opener = document.activeElement;
    dialog.addEventListener('close', () => {
      resolve(dialog.returnValue === 'confirm');
      dialog.remove();
      if (opener instanceof HTMLElement) opener.focus();
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}

/**
 * A modal dialog holding a form: build(form) adds the fields; submit(form) returns a promise
 * that rejects with the API's error (shown in the dialog) or resolves to close it.
 * @param {string} title
 * @param {(form: HTMLFormElement) => void} build
 * @param {(form: HTMLFormElement) => Promise<void>} submit
 * @param {{ action?: string }} [options]
 */
export function formDialog(title, build, submit, { action = 'Save' } = {}) {
  const titleId = uid('dlg');
  const errors = errorBox();
  const form = h('form', { class: 'stack', novalidate: true });
  const dialog = h('dialog', { 'aria-labelledby': titleId }, h('h2', { id: titleId }, title), form);
  build(form);
  const save = h('button', { type: 'submit', class: 'primary' }, action);
  form.append(
    errors.el,
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'button', class: 'quiet', onclick: () => dialog.close() }, 'Cancel'),
      save,
    ),
  );
  const opener = document.activeElement;
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    errors.clear();
    save.disabled = true;
    try {
      await submit(form);
      dialog.close();
    } catch (error) {
      errors.show(error);
    } finally {
      save.disabled = false;
    }
  });
  dialog.addEventListener('close', () => {
    dialog.remove();
    if (opener instanceof HTMLElement && opener.isConnected) opener.focus();
  });
  document.body.append(dialog);
  dialog.showModal();
  return dialog;
}

const timeFormat = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/**
 * A <time> with a readable date; accepts ISO text or epoch ms.
 * @param {string | number | null | undefined} value
 */
export function when(value) {
  if (value === undefined || value === null || value === '') return '—';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  return h('time', { datetime: date.toISOString() }, timeFormat.format(date));
}

/**
 * A status badge: 2xx, 3xx, 4xx, 5xx coloured.
 * @param {number | string} status
 */
export function statusBadge(status) {
  const group = `s${String(status).charAt(0)}xx`;
  return h('span', { class: `badge ${group}` }, String(status));
}

/**
 * Attributes {name: [values]} as "name: a, b" lines; the names in `decrypted` marked so.
 * @param {Record<string, unknown> | undefined} attrs
 * @param {string[]} [decrypted]
 */
export function attributes(attrs, decrypted = []) {
  const entries = Object.entries(attrs ?? {});
  if (entries.length === 0) return h('span', { class: 'muted' }, 'none');
  return h(
    'ul',
    { class: 'attrs' },
    entries.map(([name, values]) => {
      const text = Array.isArray(values) ? values.join(', ') : JSON.stringify(values);
      return h(
        'li',
        {},
        h('span', { class: 'attr-name' }, name),
        ' ',
        decrypted.includes(name)
          ? [
              h('mark', { class: 'decrypted' }, text),
              h('span', { class: 'decrypted-label' }, ' decrypted'),
            ]
          : text,
      );
    }),
  );
}
