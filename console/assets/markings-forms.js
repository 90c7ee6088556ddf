// @ts-check
/** The Markings page's forms: a marking's fields and a value's, each read back as a body. */
import { field, h } from './dom.js';

/** @typedef {import('./markings-data.js').Marking} Marking */
/** @typedef {import('./markings-data.js').MarkingValue} MarkingValue */
/** @typedef {import('./markings-data.js').MarkingBody} MarkingBody */
/** @typedef {import('./markings-data.js').ValueBody} ValueBody */

/**
 * Adds a marking's fields to a form, filled from the marking when one is edited.
 * @param {HTMLFormElement} form
 * @param {Partial<Marking>} [marking]
 * @returns {() => MarkingBody} what the fields hold now
 */
export function markingFields(form, marking = {}) {
  const name = field('Name', {
    value: marking.name ?? '',
    required: true,
    autocomplete: 'off',
    name: 'name',
  });
  const description = field('Description', { tag: 'textarea', rows: 3, name: 'description' });
  description.input.value = marking.detail?.description ?? '';
  const defaultValue = field(
    'Default value',
    { value: marking.defaultValue ?? '', autocomplete: 'off', name: 'defaultValue' },
    'The name of one of its values, or empty for none.',
  );
  const isPublic = field('Public', {
    type: 'checkbox',
    checked: marking.public === true,
    name: 'public',
  });
  const adminOnly = field('Admin only', {
    type: 'checkbox',
    checked: marking.adminOnly === true,
    name: 'adminOnly',
  });
  form.append(
    name.wrap,
    description.wrap,
    defaultValue.wrap,
    h('div', { class: 'row' }, isPublic.wrap, adminOnly.wrap),
  );
  return () => ({
    name: name.input.value,
    public: isPublic.input.checked,
    adminOnly: adminOnly.input.checked,
    defaultValue: defaultValue.input.value === '' ? null : defaultValue.input.value,
    detail: { description: description.input.value },
  });
}

/**
 * Adds a value's fields to a form, filled from the value when one is edited.
 * @param {HTMLFormElement} form
 * @param {Partial<MarkingValue>} [value]
 * @returns {() => ValueBody}
 */
export function valueFields(form, value = {}) {
  const name = field('Value name', {
    value: value.name ?? '',
    required: true,
    autocomplete: 'off',
    name: 'name',
  });
  const description = field('Value description', {
    value: value.description ?? '',
    autocomplete: 'off',
    name: 'description',
  });
  form.append(name.wrap, description.wrap);
  return () => ({ name: name.input.value, description: description.input.value });
}

/**
 * A search form of the filter grammar: the field, and what goes beside the submit button.
 * @param {{ label: string, field: { wrap: HTMLElement }, beside?: HTMLElement, submit: HTMLButtonElement, onSearch: () => void }} parts
 */
export function searchForm({ label, field, beside, submit, onSearch }) {
  const form = h(
    'form',
    { class: 'search', role: 'search', 'aria-label': label },
    field.wrap,
    h('div', { class: 'search-actions' }, beside ?? null, submit),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    onSearch();
  });
  return form;
}
