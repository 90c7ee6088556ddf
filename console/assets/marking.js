// @ts-check
/**
 * One marking of the Markings page: its facts, edit and delete, and its values 100 a page with a
 * filter, an add form, edit and remove. Drawn again whole after each change, the focus put back
 * where the change was asked for.
 */
import {
  announce,
  confirmDialog,
  count,
  errorBox,
  facts,
  field,
  fill,
  formDialog,
  h,
  table,
  when,
} from './dom.js';
import {
  addValue,
  deleteMarking,
  listValues,
  readMarking,
  removeValue,
  saveMarking,
  saveValue,
  VALUE_PAGE,
  yesNo,
} from './markings-data.js';
import { markingFields, searchForm, valueFields } from './markings-forms.js';
import { pager } from './pager.js';
import { routeTo } from './route.js';

/** @typedef {import('./route.js').Route} Route */
/** @typedef {import('./markings-data.js').Marking} Marking */
/** @typedef {import('./markings-data.js').MarkingValue} MarkingValue */
/**
 * The marking shown, and how to draw it again (with what gets the focus).
 * @typedef {{ id: string, marking: Marking, route: Route, again: (focusId: string) => void }} Shown
 */

/**
 * One marking and a page of its values; focusId: what gets the focus once drawn again.
 * @param {HTMLElement} main
 * @param {string} id
 * @param {Route} route
 * @param {string} [focusId]
 */
export async function showMarking(main, id, route, focusId) {
  const errors = errorBox();
  const head = h('div', { class: 'page-head' });
  const about = h('div');
  const valuesBox = h('div', { class: 'results', 'aria-live': 'polite' });
  fill(
    main,
    h('p', { class: 'crumbs' }, h('a', { href: '#/markings' }, '‹ All markings')),
    head,
    errors.el,
    about,
    valuesBox,
  );
  /** @type {Marking} */
  let marking;
  try {
    marking = await readMarking(id);
  } catch (error) {
    fill(head, h('h1', {}, 'Marking'));
    errors.show(error);
    return;
  }
  /** @type {Shown} */
  const shown = { id, marking, route, again: (focus) => void showMarking(main, id, route, focus) };
  fill(
    head,
    h('h1', {}, marking.name),
    h(
      'div',
      { class: 'actions' },
      h(
        'button',
        { type: 'button', id: 'edit-marking', onclick: () => editMarking(shown) },
        'Edit marking',
      ),
      h(
        'button',
        { type: 'button', class: 'danger', onclick: () => removeMarking(shown, errors) },
        'Delete marking',
      ),
    ),
  );
  fill(about, h('section', { class: 'card' }, markingFacts(marking)));
  await showValues(valuesBox, shown);
  if (focusId) document.getElementById(focusId)?.focus();
}

/** @param {Marking} marking */
function markingFacts(marking) {
  return facts([
    ['Id', h('code', {}, marking.id)],
    ['Description', marking.detail?.description || '—'],
    ['Default value', marking.defaultValue ?? '—'],
    ['Public', yesNo(marking.public)],
    ['Admin only', yesNo(marking.adminOnly)],
    ['Values', count(marking.detail?.valueCount ?? 0)],
    ['Version', String(marking._version)],
    ['Created', h('span', {}, when(marking._createdTs), ` by ${marking._createdBy ?? '—'}`)],
    ['Updated', h('span', {}, when(marking._updatedTs), ` by ${marking._updatedBy ?? '—'}`)],
  ]);
}

/** @param {Shown} shown */
function editMarking({ id, marking, again }) {
  /** @type {() => import('./markings-data.js').MarkingBody} */
  let read;
  formDialog(
    `Edit ${marking.name}`,
    (form) => (read = markingFields(form, marking)),
    async () => {
      await saveMarking(id, marking, read());
      announce('Marking saved');
      again('edit-marking');
    },
  );
}

/**
 * @param {Shown} shown
 * @param {ReturnType<typeof errorBox>} errors
 */
async function removeMarking({ id, marking }, errors) {
  const sure = await confirmDialog(`Delete the marking ${marking.name}?`, {
    confirm: 'Delete marking',
    detail: `Its ${count(marking.detail?.valueCount ?? 0)} values go with it. This cannot be undone.`,
  });
  if (!sure) return;
  try {
    await deleteMarking(id, marking);
    announce(`Marking ${marking.name} deleted`);
    routeTo('markings');
  } catch (error) {
    errors.show(error);
  }
}

/**
 * Values: a filter, an add form, a page of 100.
 * @param {HTMLElement} box
 * @param {Shown} shown
 */
async function showValues(box, shown) {
  const { id, marking, route } = shown;
  const vq = route.params.get('vq') ?? '';
  const vskip = Number(route.params.get('vskip') ?? 0) || 0;
  const vfilter = field(
    'Filter values',
    { type: 'search', value: vq, autocomplete: 'off', placeholder: 'name__contains=…' },
    'Same grammar as markings (fields id, name, description, _createdTs, _updatedTs); a bare word searches names.',
  );
  const vform = searchForm({
    label: 'Values',
    field: vfilter,
    submit: h('button', { type: 'submit' }, 'Filter'),
    onSearch: () => routeTo('markings', [id], { vq: vfilter.input.value.trim() }),
  });
  const add = addValueForm(shown);
  const valueErrors = errorBox();
  const valueList = h('div');
  fill(box, h('h2', {}, 'Values'), vform, add.form, add.errors.el, valueErrors.el, valueList);
  try {
    const page = await listValues(id, { text: vq, skip: vskip });
    fill(
      valueList,
      table(`Values of ${marking.name}`, valueColumns(shown, valueErrors), page.Resources ?? [], {
        empty: vq ? 'No value matches the filter.' : 'No values yet.',
      }),
      pager(
        'Values pages',
        { total: page.totalResults ?? 0, skip: vskip, limit: VALUE_PAGE },
        (s) => routeTo('markings', [id], { vq, vskip: s || '' }),
      ),
    );
  } catch (error) {
    valueErrors.show(error);
  }
}

/** The form that adds a value, and where it shows a refusal. @param {Shown} shown */
function addValueForm({ id, again }) {
  const errors = errorBox();
  const name = field('New value name', {
    id: 'new-value-name',
    autocomplete: 'off',
    required: true,
  });
  const description = field('New value description', { autocomplete: 'off' });
  const form = h(
    'form',
    { class: 'inline-form', 'aria-label': 'Add a value' },
    name.wrap,
    description.wrap,
    h('button', { type: 'submit', class: 'primary' }, 'Add value'),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    errors.clear();
    try {
      const value = await addValue(id, {
        name: name.input.value,
        description: description.input.value,
      });
      announce(`Value ${value.name} added`);
      again('new-value-name');
    } catch (error) {
      errors.show(error);
    }
  });
  return { form, errors };
}

/**
 * The values table's columns, the last with each value's Edit and Remove.
 * @param {Shown} shown
 * @param {ReturnType<typeof errorBox>} errors
 * @returns {import('./dom.js').Column<MarkingValue>[]}
 */
function valueColumns(shown, errors) {
  /** @param {MarkingValue} v */
  const actions = (v) =>
    h(
      'span',
      { class: 'row-actions' },
      h(
        'button',
        {
          type: 'button',
          class: 'quiet small',
          'aria-label': `Edit value ${v.name}`,
          onclick: () => editValue(shown, v),
        },
        'Edit',
      ),
      h(
        'button',
        {
          type: 'button',
          class: 'quiet small danger-text',
          'aria-label': `Remove value ${v.name}`,
          onclick: () => dropValue(shown, v, errors),
        },
        'Remove',
      ),
    );
  return [
    { title: 'Name', cell: (v) => v.name },
    { title: 'Description', cell: (v) => v.description || '', class: 'wrap' },
    { title: 'Updated', cell: (v) => when(v._updatedTs) },
    { title: 'Actions', cell: actions },
  ];
}

/** @param {Shown} shown @param {MarkingValue} value */
function editValue({ id, again }, value) {
  /** @type {() => import('./markings-data.js').ValueBody} */
  let read;
  formDialog(
    `Edit value ${value.name}`,
    (form) => (read = valueFields(form, value)),
    async () => {
      await saveValue(id, value, read());
      announce('Value saved');
      again('new-value-name');
    },
  );
}

/**
 * @param {Shown} shown
 * @param {MarkingValue} value
 * @param {ReturnType<typeof errorBox>} errors
 */
async function dropValue({ id, marking, again }, value, errors) {
  const sure = await confirmDialog(`Remove the value ${value.name}?`, {
    confirm: 'Remove value',
    detail: `From the marking ${marking.name}.`,
  });
  if (!sure) return;
  try {
    await removeValue(id, value);
    announce(`Value ${value.name} removed`);
    again('new-value-name');
  } catch (error) {
    errors.show(error);
  }
}
