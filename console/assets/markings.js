// @ts-check
/**
 * Markings: the list searched with the API's own filter grammar (terms like name__contains=cl,
 * combined with AND or, with the toggle, OR), 50 a page without their values (valueLimit=0) so
 * 20,000 markings stay quick; one marking with its values 100 a page (never all at once, see
 * marking.js); create, edit and delete markings and values, showing the API's message and details
 * when it refuses. The calls and the filter grammar are in markings-data.js.
 */
import { announce, count, errorBox, field, fill, formDialog, h, table, when } from './dom.js';
import { showMarking } from './marking.js';
import { createMarking, listAsked, listMarkings, PAGE, yesNo } from './markings-data.js';
import { markingFields, searchForm } from './markings-forms.js';
import { pager } from './pager.js';
import { routeTo } from './route.js';

/** @typedef {import('./route.js').Route} Route */
/** @typedef {import('./markings-data.js').Marking} Marking */
/** @typedef {import('./markings-data.js').ListEnvelope<Marking>} MarkingPage */

/**
 * @param {HTMLElement} main
 * @param {Route} route
 */
export function mount(main, route) {
  /** @type {ReturnType<typeof listView> | undefined} */
  let list;
  /** @param {Route} route */
  function render(route) {
    if (route.rest[0]) {
      list = undefined;
      void showMarking(main, route.rest[0], route);
    } else {
      list ??= listView(main);
      list.show(route);
    }
  }
  render(route);
  return { update: render };
}

/**
 * The list: its search form, drawn once, and the page of markings it finds, drawn again for
 * each route of the list.
 * @param {HTMLElement} main
 */
function listView(main) {
  const filter = field(
    'Filter',
    {
      type: 'search',
      autocomplete: 'off',
      spellcheck: 'false',
      placeholder: 'name__contains=cl public=true',
    },
    'The API’s filter grammar: FIELD=value or FIELD__OP=value (contains, startswith, gte, lte, ne, empty, any, all), terms separated by spaces; a bare word searches names.',
  );
  const anyTerm = field('Match any term (or)', { type: 'checkbox' });
  const form = searchForm({
    label: 'Markings',
    field: filter,
    beside: anyTerm.wrap,
    submit: h('button', { type: 'submit', class: 'primary' }, 'Search'),
    onSearch: () =>
      routeTo('markings', [], {
        q: filter.input.value.trim(),
        or: anyTerm.input.checked ? 'true' : '',
      }),
  });
  const errors = errorBox();
  const results = h('div', { class: 'results', 'aria-live': 'polite', 'aria-busy': 'false' });
  fill(
    main,
    h(
      'div',
      { class: 'page-head' },
      h('h1', {}, 'Markings'),
      h('button', { type: 'button', class: 'primary', onclick: newMarking }, 'New marking'),
    ),
    form,
    errors.el,
    results,
  );

  let listToken = 0;
  /** @param {{ text: string, or: boolean, skip: number }} asked */
  async function load(asked) {
    const mine = ++listToken;
    results.setAttribute('aria-busy', 'true');
    try {
      const page = await listMarkings(asked);
      if (mine !== listToken) return;
      errors.clear();
      fill(results, ...markingsPage(page, asked));
    } catch (error) {
      if (mine !== listToken) return;
      errors.show(error);
      results.replaceChildren();
    } finally {
      results.setAttribute('aria-busy', 'false');
    }
  }

  return {
    /** @param {Route} route */
    show(route) {
      const asked = listAsked(route);
      filter.input.value = asked.text;
      anyTerm.input.checked = asked.or;
      void load(asked);
    },
  };
}

/**
 * A page of markings: the table and its pager.
 * @param {MarkingPage} page
 * @param {{ text: string, or: boolean, skip: number }} asked
 */
function markingsPage(page, { text, or, skip }) {
  /** @param {number} s */
  const go = (s) => routeTo('markings', [], { q: text, or: or ? 'true' : '', skip: s || '' });
  return [
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
  ];
}

function newMarking() {
  /** @type {() => import('./markings-data.js').MarkingBody} */
  let read;
  formDialog(
    'New marking',
    (form) => (read = markingFields(form)),
    async () => {
      const created = await createMarking(read());
      announce(`Marking ${created.name} created`);
      routeTo('markings', [created.id]);
    },
    { action: 'Create' },
  );
}
