// @ts-check
/**
 * JSON shown as indented text built from text nodes (never parsed as markup), with the values
 * the mock decrypted marked: an object {decrypted: true, values: […]} — how an opened envelope
 * marks a protected attribute's values — is shown as its values, highlighted and labelled
 * "decrypted".
 */
import { h } from './dom.js';

/**
 * @param {unknown} value
 * @returns {value is { decrypted: true, values?: unknown, value?: unknown }}
 */
function isDecrypted(value) {
  return (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    /** @type {{ decrypted?: unknown }} */ (value).decrypted === true &&
    ('values' in value || 'value' in value)
  );
}

/** @param {unknown} value */
function scalar(value) {
  const kind = value === null ? 'null' : typeof value;
  return h('span', { class: `j-${kind}` }, JSON.stringify(value));
}

/**
 * Appends the parts of a JSON value to out.
 * @param {unknown} value
 * @param {number} depth
 * @param {(Node | string)[]} out
 * @returns {(Node | string)[]}
 */
function node(value, depth, out) {
  const pad = '  '.repeat(depth + 1);
  const end = '  '.repeat(depth);
  if (isDecrypted(value)) {
    const shown = 'values' in value ? value.values : value.value;
    out.push(
      h('mark', { class: 'decrypted' }, JSON.stringify(shown)),
      h('span', { class: 'decrypted-label' }, ' decrypted'),
    );
  } else if (Array.isArray(value)) {
    if (value.length === 0) return (out.push('[]'), out);
    out.push('[\n');
    value.forEach((item, i) => {
      out.push(pad);
      node(item, depth + 1, out);
      out.push(i < value.length - 1 ? ',\n' : '\n');
    });
    out.push(`${end}]`);
  } else if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) return (out.push('{}'), out);
    out.push('{\n');
    entries.forEach(([key, item], i) => {
      out.push(pad, h('span', { class: 'j-key' }, JSON.stringify(key)), ': ');
      node(item, depth + 1, out);
      out.push(i < entries.length - 1 ? ',\n' : '\n');
    });
    out.push(`${end}}`);
  } else {
    out.push(scalar(value));
  }
  return out;
}

/**
 * A <pre> showing value as JSON, decrypted values marked.
 * @param {unknown} value
 * @param {string} label
 */
export function jsonView(value, label) {
  return h(
    'div',
    { class: 'scroll', role: 'region', tabindex: 0, 'aria-label': label },
    h('pre', { class: 'json' }, node(value, 0, [])),
  );
}

/**
 * Whether a JSON value holds a decrypted mark anywhere.
 * @param {unknown} value
 * @returns {boolean}
 */
export function hasDecrypted(value) {
  if (isDecrypted(value)) return true;
  if (value !== null && typeof value === 'object') return Object.values(value).some(hasDecrypted);
  return false;
}
