/**
 * Faults: the rules in force with how often each fired; a form with the keys of `--fault`
 * (method, path, status, code, probability, times) that the mock checks as it checks --fault,
 * its messages shown beside the form; remove one rule, or clear them all (asking first).
 */
import { api, get } from './api.js';
import { announce, confirmDialog, count, errorBox, field, fill, h, table } from './dom.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** The rule the form describes: empty fields left out, numbers as typed (the mock checks them). */
export function ruleFrom(values) {
  const rule = {};
  for (const [k, v] of Object.entries(values)) {
    const text = String(v ?? '').trim();
    if (text === '') continue;
    rule[k] =
      ['status', 'code', 'probability', 'times'].includes(k) && /^-?(\d+(\.\d*)?|\.\d+)$/.test(text)
        ? Number(text)
        : text;
  }
  return rule;
}

export function mount(main) {
  const errors = errorBox();
  const listErrors = errorBox();
  const list = h('div');
  const inputs = {
    method: field('Method', {
      tag: 'select',
      options: [['', 'Any method'], ...METHODS.map((m) => [m, m])],
    }),
    path: field(
      'Path',
      { autocomplete: 'off', placeholder: '/v2/*/markings*', spellcheck: 'false' },
      'An exact path, or a prefix ending in *.',
    ),
    status: field('Status', { inputmode: 'numeric', autocomplete: 'off', placeholder: '503' }),
    code: field(
      'Code',
      { inputmode: 'numeric', autocomplete: 'off', placeholder: '40004' },
      'A markings error code, an enrollment cause or a device error code.',
    ),
    probability: field(
      'Probability',
      { inputmode: 'decimal', autocomplete: 'off', placeholder: '1' },
      'From 0 to 1; 1 when empty.',
    ),
    times: field(
      'Times',
      { inputmode: 'numeric', autocomplete: 'off', placeholder: 'unlimited' },
      'How often it fires before it is spent.',
    ),
  };
  const form = h(
    'form',
    {
      class: 'card fault-form page-section',
      'aria-labelledby': 'fault-form-title',
      novalidate: true,
    },
    h('h2', { id: 'fault-form-title' }, 'Add a rule'),
    h(
      'div',
      { class: 'form-grid' },
      Object.values(inputs).map((f) => f.wrap),
    ),
    errors.el,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Add rule')),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    errors.clear();
    const rule = ruleFrom(
      Object.fromEntries(Object.entries(inputs).map(([k, f]) => [k, f.input.value])),
    );
    try {
      await api('POST', 'faults', rule);
      announce('Rule added');
      for (const f of Object.values(inputs)) f.input.value = '';
      await refresh();
    } catch (error) {
      errors.show(error);
    }
  });
  const clearButton = h(
    'button',
    { type: 'button', class: 'danger', onclick: clearAll },
    'Clear all rules',
  );
  fill(
    main,
    h('div', { class: 'page-head' }, h('h1', {}, 'Faults'), clearButton),
    h(
      'p',
      { class: 'muted' },
      'Rules that make the mock fail on purpose, as ',
      h('code', { class: 'nowrap' }, '--fault'),
      ' does: the first that matches a request answers it.',
    ),
    listErrors.el,
    list,
    form,
  );

  const cell = (v) => (v === undefined || v === null ? '—' : String(v));
  let shown = '';
  async function refresh() {
    try {
      const { faults = [] } = await get('faults');
      listErrors.clear();
      // Rebuilt only when something changed (a hit, a rule), so focus stays where it is.
      const now = JSON.stringify(faults);
      if (now === shown) return;
      shown = now;
      clearButton.disabled = faults.length === 0;
      fill(
        list,
        table(
          'Rules in force',
          [
            { title: '#', cell: (r) => String(r.index + 1), class: 'num' },
            { title: 'Method', cell: (r) => cell(r.method) },
            { title: 'Path', cell: (r) => cell(r.path), class: 'mono' },
            { title: 'Status', cell: (r) => cell(r.status) },
            { title: 'Code', cell: (r) => cell(r.code) },
            { title: 'Probability', cell: (r) => cell(r.probability ?? 1) },
            { title: 'Times left', cell: (r) => cell(r.times ?? 'unlimited') },
            { title: 'Hits', cell: (r) => count(r.hits ?? 0), class: 'num' },
            {
              title: 'Actions',
              cell: (r) =>
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'quiet small danger-text',
                    'aria-label': `Remove rule ${r.index + 1}`,
                    onclick: () => remove(r),
                  },
                  'Remove',
                ),
            },
          ],
          faults.map((f, index) => ({ ...f, index })),
          { empty: 'No rules: the mock answers every request normally.' },
        ),
      );
    } catch (error) {
      listErrors.show(error);
    }
  }

  async function remove(rule) {
    try {
      await api('DELETE', `faults/${rule.index}`);
      announce(`Rule ${rule.index + 1} removed`);
      await refresh();
      (list.querySelector('tbody button') ?? form.querySelector('select'))?.focus();
    } catch (error) {
      listErrors.show(error);
    }
  }

  async function clearAll() {
    if (
      !(await confirmDialog('Clear all fault rules?', {
        confirm: 'Clear all',
        detail: 'The mock then answers every request normally.',
      }))
    )
      return;
    try {
      await api('DELETE', 'faults');
      announce('All rules cleared');
      await refresh();
    } catch (error) {
      listErrors.show(error);
    }
  }

  void refresh();
  const timer = setInterval(refresh, 3000);
  return { unmount: () => clearInterval(timer) };
}
