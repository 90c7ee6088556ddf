/**
 * Markings: the list searched with the API's own filter grammar (terms like name__contains=cl,
 * combined with AND or, with the toggle, OR), 50 a page without their values (valueLimit=0) so
 * 20,000 markings stay quick; one marking with its values 100 a page (never all at once); create,
 * edit and delete markings and values, showing the API's message and details when it refuses.
 */
import { api, get, query } from './api.js';
import {
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
  announce,
} from './dom.js';
import { pager } from './pager.js';
import { routeTo } from './route.js';

const PAGE = 50;
const VALUE_PAGE = 100;

/**
 * The filter text as query terms: `name__contains=cl public=true`, terms split on spaces or &,
 * a value in double quotes may hold spaces; a bare word means name__contains=word.
 */
export function filterTerms(text) {
  const terms = [];
  const pattern = /([^\s&="]+)(?:=("([^"]*)"|[^\s&]*))?/g;
  for (const m of (text ?? '').matchAll(pattern)) {
    if (m[2] === undefined) terms.push(['name__contains', m[1]]);
    else terms.push([m[1], m[3] ?? m[2]]);
  }
  return terms;
}

function termsQuery(terms, extra) {
  const q = new URLSearchParams();
  for (const [k, v] of terms) q.append(k, v);
  for (const [k, v] of Object.entries(extra)) if (v !== undefined && v !== '') q.set(k, String(v));
  return `?${q}`;
}

const yesNo = (b) => (b ? 'yes' : 'no');

function markingFields(form, marking = {}) {
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

function valueFields(form, value = {}) {
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

export function mount(main, route) {
  let view; // 'list' | 'one'
  let listParts;

  function showList(route) {
    const text = route.params.get('q') ?? '';
    const or = route.params.get('or') === 'true';
    const skip = Number(route.params.get('skip') ?? 0) || 0;
    if (view !== 'list') {
      view = 'list';
      const filter = field(
        'Filter',
        {
          type: 'search',
          value: text,
          autocomplete: 'off',
          spellcheck: 'false',
          placeholder: 'name__contains=cl public=true',
        },
        'The API’s filter grammar: FIELD=value or FIELD__OP=value (contains, startswith, gte, lte, ne, empty, any, all), terms separated by spaces; a bare word searches names.',
      );
      const anyTerm = field('Match any term (or)', { type: 'checkbox', checked: or });
      const form = h(
        'form',
        { class: 'search', role: 'search', 'aria-label': 'Markings' },
        filter.wrap,
        h(
          'div',
          { class: 'search-actions' },
          anyTerm.wrap,
          h('button', { type: 'submit', class: 'primary' }, 'Search'),
        ),
      );
      form.addEventListener('submit', (event) => {
        event.preventDefault();
        routeTo('markings', [], {
          q: filter.input.value.trim(),
          or: anyTerm.input.checked ? 'true' : '',
        });
      });
      const errors = errorBox();
      const results = h('div', { class: 'results', 'aria-live': 'polite', 'aria-busy': 'false' });
      fill(
        main,
        h(
          'div',
          { class: 'page-head' },
          h('h1', {}, 'Markings'),
          h('button', { type: 'button', class: 'primary', onclick: createMarking }, 'New marking'),
        ),
        form,
        errors.el,
        results,
      );
      listParts = { filter, anyTerm, errors, results };
    }
    listParts.filter.input.value = text;
    listParts.anyTerm.input.checked = or;
    void loadList(text, or, skip);
  }

  let listToken = 0;
  async function loadList(text, or, skip) {
    const { errors, results } = listParts;
    const mine = ++listToken;
    results.setAttribute('aria-busy', 'true');
    try {
      const page = await get(
        `markings${termsQuery(filterTerms(text), { or: or ? 'true' : '', limit: PAGE, skip, valueLimit: 0 })}`,
      );
      if (mine !== listToken) return;
      errors.clear();
      const go = (s) => routeTo('markings', [], { q: text, or: or ? 'true' : '', skip: s || '' });
      fill(
        results,
        table(
          'Markings',
          [
            {
              title: 'Name',
              cell: (m) => h('a', { href: `#/markings/${encodeURIComponent(m.id)}` }, m.name),
            },
            { title: 'Description', cell: (m) => m.detail?.description ?? '', class: 'wrap' },
            { title: 'Values', cell: (m) => count(m.detail?.valueCount ?? 0), class: 'num' },
            { title: 'Default', cell: (m) => m.defaultValue ?? '—' },
            { title: 'Public', cell: (m) => yesNo(m.public) },
            { title: 'Admin only', cell: (m) => yesNo(m.adminOnly) },
            { title: 'Updated', cell: (m) => when(m._updatedTs) },
          ],
          page.Resources ?? [],
          { empty: text ? 'No marking matches the filter.' : 'No markings yet.' },
        ),
        pager('Markings pages', { total: page.totalResults ?? 0, skip, limit: PAGE }, go),
      );
    } catch (error) {
      if (mine !== listToken) return;
      errors.show(error);
      results.replaceChildren();
    } finally {
      results.setAttribute('aria-busy', 'false');
    }
  }

  function createMarking() {
    let read;
    formDialog(
      'New marking',
      (form) => (read = markingFields(form)),
      async () => {
        const body = read();
        if (body.defaultValue === null) delete body.defaultValue;
        const created = await api('POST', 'markings', body);
        announce(`Marking ${created.name} created`);
        routeTo('markings', [created.id]);
      },
      { action: 'Create' },
    );
  }

  /** One marking and a page of its values; focusId: what gets the focus once drawn again. */
  async function showOne(id, route, focusId) {
    view = 'one';
    const vq = route.params.get('vq') ?? '';
    const vskip = Number(route.params.get('vskip') ?? 0) || 0;
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
    let marking;
    try {
      marking = await get(`markings/${encodeURIComponent(id)}${query({ valueLimit: 0 })}`);
    } catch (error) {
      fill(head, h('h1', {}, 'Marking'));
      errors.show(error);
      return;
    }
    const version = () => ({ 'If-Match': `"${marking._version}"` });
    fill(
      head,
      h('h1', {}, marking.name),
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'button', id: 'edit-marking', onclick: edit }, 'Edit marking'),
        h('button', { type: 'button', class: 'danger', onclick: remove }, 'Delete marking'),
      ),
    );
    fill(
      about,
      h(
        'section',
        { class: 'card' },
        facts([
          ['Id', h('code', {}, marking.id)],
          ['Description', marking.detail?.description || '—'],
          ['Default value', marking.defaultValue ?? '—'],
          ['Public', yesNo(marking.public)],
          ['Admin only', yesNo(marking.adminOnly)],
          ['Values', count(marking.detail?.valueCount ?? 0)],
          ['Version', String(marking._version)],
          ['Created', h('span', {}, when(marking._createdTs), ` by ${marking._createdBy ?? '—'}`)],
          ['Updated', h('span', {}, when(marking._updatedTs), ` by ${marking._updatedBy ?? '—'}`)],
        ]),
      ),
    );

    function edit() {
      let read;
      formDialog(
        `Edit ${marking.name}`,
        (form) => (read = markingFields(form, marking)),
        async () => {
          await api('PUT', `markings/${encodeURIComponent(id)}`, read(), version());
          announce('Marking saved');
          void showOne(id, route, 'edit-marking');
        },
      );
    }
    async function remove() {
      const sure = await confirmDialog(`Delete the marking ${marking.name}?`, {
        confirm: 'Delete marking',
        detail: `Its ${count(marking.detail?.valueCount ?? 0)} values go with it. This cannot be undone.`,
      });
      if (!sure) return;
      try {
        await api('DELETE', `markings/${encodeURIComponent(id)}`, undefined, version());
        announce(`Marking ${marking.name} deleted`);
        routeTo('markings');
      } catch (error) {
        errors.show(error);
      }
    }

    // Values: a filter, an add form, a page of 100.
    const vfilter = field(
      'Filter values',
      { type: 'search', value: vq, autocomplete: 'off', placeholder: 'name__contains=…' },
      'Same grammar as markings (fields id, name, description, _createdTs, _updatedTs); a bare word searches names.',
    );
    const vform = h(
      'form',
      { class: 'search', role: 'search', 'aria-label': 'Values' },
      vfilter.wrap,
      h('div', { class: 'search-actions' }, h('button', { type: 'submit' }, 'Filter')),
    );
    vform.addEventListener('submit', (event) => {
      event.preventDefault();
      routeTo('markings', [id], { vq: vfilter.input.value.trim() });
    });
    const addErrors = errorBox();
    const addName = field('New value name', {
      id: 'new-value-name',
      autocomplete: 'off',
      required: true,
    });
    const addDescription = field('New value description', { autocomplete: 'off' });
    const addForm = h(
      'form',
      { class: 'inline-form', 'aria-label': 'Add a value' },
      addName.wrap,
      addDescription.wrap,
      h('button', { type: 'submit', class: 'primary' }, 'Add value'),
    );
    addForm.addEventListener('submit', async (event) => {
      event.preventDefault();
      addErrors.clear();
      try {
        const value = await api('POST', `markings/${encodeURIComponent(id)}/values`, {
          name: addName.input.value,
          description: addDescription.input.value,
        });
        announce(`Value ${value.name} added`);
        void showOne(id, route, 'new-value-name');
      } catch (error) {
        addErrors.show(error);
      }
    });
    const valueErrors = errorBox();
    const valueList = h('div');
    fill(valuesBox, h('h2', {}, 'Values'), vform, addForm, addErrors.el, valueErrors.el, valueList);

    try {
      const page = await get(
        `markings/${encodeURIComponent(id)}/values${termsQuery(filterTerms(vq), { limit: VALUE_PAGE, skip: vskip })}`,
      );
      fill(
        valueList,
        table(
          `Values of ${marking.name}`,
          [
            { title: 'Name', cell: (v) => v.name },
            { title: 'Description', cell: (v) => v.description || '', class: 'wrap' },
            { title: 'Updated', cell: (v) => when(v._updatedTs) },
            {
              title: 'Actions',
              cell: (v) =>
                h(
                  'span',
                  { class: 'row-actions' },
                  h(
                    'button',
                    {
                      type: 'button',
                      class: 'quiet small',
                      'aria-label': `Edit value ${v.name}`,
                      onclick: () => editValue(v),
                    },
                    'Edit',
                  ),
                  h(
                    'button',
                    {
                      type: 'button',
                      class: 'quiet small danger-text',
                      'aria-label': `Remove value ${v.name}`,
                      onclick: () => removeValue(v),
                    },
                    'Remove',
                  ),
                ),
            },
          ],
          page.Resources ?? [],
          { empty: vq ? 'No value matches the filter.' : 'No values yet.' },
        ),
        pager(
          'Values pages',
          { total: page.totalResults ?? 0, skip: vskip, limit: VALUE_PAGE },
          (s) => routeTo('markings', [id], { vq, vskip: s || '' }),
        ),
      );
    } catch (error) {
      valueErrors.show(error);
    }
    if (focusId) document.getElementById(focusId)?.focus();

    function editValue(value) {
      let read;
      formDialog(
        `Edit value ${value.name}`,
        (form) => (read = valueFields(form, value)),
        async () => {
          await api(
            'PUT',
            `markings/${encodeURIComponent(id)}/values/${encodeURIComponent(value.id)}`,
            read(),
          );
          announce('Value saved');
          void showOne(id, route, 'new-value-name');
        },
      );
    }
    async function removeValue(value) {
      const sure = await confirmDialog(`Remove the value ${value.name}?`, {
        confirm: 'Remove value',
        detail: `From the marking ${marking.name}.`,
      });
      if (!sure) return;
      try {
        await api(
          'DELETE',
          `markings/${encodeURIComponent(id)}/values/${encodeURIComponent(value.id)}`,
        );
        announce(`Value ${value.name} removed`);
        void showOne(id, route, 'new-value-name');
      } catch (error) {
        valueErrors.show(error);
      }
    }
  }

  function render(route) {
    if (route.rest[0]) void showOne(route.rest[0], route);
    else showList(route);
  }
  render(route);
  return { update: render };
}
