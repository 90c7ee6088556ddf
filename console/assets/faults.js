// @ts-check
/**
 * Faults: the rules in force with how often each fired; a form with the keys of `--fault`
 * (method, path, status, code, probability, times) that the mock checks as it checks --fault,
 * its messages shown beside the form; remove one rule, or clear them all (asking first). The
 * calls and the rule a form describes are in faults-data.js.
 */
import { announce, confirmDialog, count, errorBox, field, fill, h, table } from './dom.js';
import {
  addRule,
  cellText as cell,
  clearRules,
  listRules,
  METHODS,
  removeRule,
  ruleFrom,
} from './faults-data.js';

/** @typedef {import('./faults-data.js').ListedRule} ListedRule */

/** @param {HTMLElement} main */
export function mount(main) {
  const listErrors = errorBox();
  const list = h('div');
  const form = ruleForm(() => refresh());
  const clearButton = h(
    'button',
    { type: 'button', class: 'danger', onclick: clearAll },
    'Clear all rules',
  );
  fill(
    main,
    h('div', { class: 'page-head' }, h('h1', {}, 'Faults'), clearButton),
    intro(),
    listErrors.el,
    list,
    form,
  );

  let shown = '';
  async function refresh() {
    try {
      const rules = await listRules();
      listErrors.clear();
      // Rebuilt only when something changed (a hit, a rule), so focus stays where it is.
      const now = JSON.stringify(rules);
      if (now === shown) return;
      shown = now;
      clearButton.disabled = rules.length === 0;
      fill(
        list,
        table('Rules in force', ruleColumns(remove), rules, {
          empty: 'No rules: the mock answers every request normally.',
        }),
      );
    } catch (error) {
      listErrors.show(error);
    }
  }

  /**
   * Makes a change, says so and shows the rules again: true when done; a refusal is shown.
   * @param {() => Promise<unknown>} action
   * @param {string} done what is announced once it is done
   */
  async function change(action, done) {
    try {
      await action();
      announce(done);
      await refresh();
      return true;
    } catch (error) {
      listErrors.show(error);
      return false;
    }
  }

  /** @param {ListedRule} rule */
  async function remove(rule) {
    if (!(await change(() => removeRule(rule), `Rule ${rule.index + 1} removed`))) return;
    const next = list.querySelector('tbody button') ?? form.querySelector('select');
    if (next instanceof HTMLElement) next.focus();
  }

  async function clearAll() {
    const sure = await confirmDialog('Clear all fault rules?', {
      confirm: 'Clear all',
      detail: 'The mock then answers every request normally.',
    });
    if (sure) await change(clearRules, 'All rules cleared');
  }

  void refresh();
  const timer = setInterval(refresh, 3000);
  return { unmount: () => clearInterval(timer) };
}

/** What the page is for, under its heading. */
function intro() {
  return h(
    'p',
    { class: 'muted' },
    'Rules that make the mock fail on purpose, as ',
    h('code', { class: 'nowrap' }, '--fault'),
    ' does: the first that matches a request answers it.',
  );
}

/**
 * The form that adds a rule; its errors shown in it, the list refreshed once added.
 * @param {() => Promise<void>} refresh
 */
function ruleForm(refresh) {
  const errors = errorBox();
  const inputs = ruleInputs();
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
      await addRule(rule);
      announce('Rule added');
      for (const f of Object.values(inputs)) f.input.value = '';
      await refresh();
    } catch (error) {
      errors.show(error);
    }
  });
  return form;
}

/** The form's fields, one a key of --fault. */
function ruleInputs() {
  return {
    method: field('Method', {
      tag: 'select',
      options: [
        ['', 'Any method'],
        ...METHODS.map((m) => /** @type {[string, string]} */ ([m, m])),
      ],
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
}

/**
 * The rules table's columns, the last with each rule's Remove.
 * @param {(rule: ListedRule) => void} remove
 * @returns {import('./dom.js').Column<ListedRule>[]}
 */
function ruleColumns(remove) {
  return [
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
  ];
}
