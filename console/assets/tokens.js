// @ts-check
/**
 * Tokens: mint a STOKEN/UIDAUTH pair for a user (any name, so "user not found" can be tried),
 * with copy buttons and the `ksctl enroll` line that uses it; and the outbox of registration
 * codes the portal "e-mailed".
 */
import { announce, codeLine, errorBox, field, fill, h, table, when } from './dom.js';
import { mint, mintBody, readOutbox } from './tokens-data.js';

/** @typedef {import('./tokens-data.js').ConsoleTokenPair} ConsoleTokenPair */
/** @typedef {import('./tokens-data.js').ConsoleOutboxMessage} ConsoleOutboxMessage */

/** @param {HTMLElement} main */
export function mount(main) {
  const outbox = h('div');
  const outboxErrors = errorBox();
  fill(
    main,
    h('div', { class: 'page-head' }, h('h1', {}, 'Tokens')),
    mintForm(),
    h(
      'section',
      { class: 'page-section', 'aria-labelledby': 'outbox-title' },
      h(
        'div',
        { class: 'page-head' },
        h('h2', { id: 'outbox-title' }, 'Outbox'),
        h(
          'button',
          { type: 'button', class: 'quiet', onclick: () => void refresh() },
          'Refresh outbox',
        ),
      ),
      h('p', { class: 'muted' }, 'Registration codes the enrollment portal sent by e-mail.'),
      outboxErrors.el,
      outbox,
    ),
  );

  async function refresh() {
    try {
      const messages = await readOutbox();
      outboxErrors.clear();
      fill(
        outbox,
        table('Outbox messages', OUTBOX_COLUMNS, messages, { empty: 'No e-mail sent yet.' }),
      );
    } catch (error) {
      outboxErrors.show(error);
    }
  }
  void refresh();
  return {};
}

/** The form that mints a pair, and below it the pair minted. */
function mintForm() {
  const errors = errorBox();
  const minted = h('div', { 'aria-live': 'polite' });
  const user = field(
    'User',
    { value: 'alice', autocomplete: 'off', required: true, spellcheck: 'false' },
    'Any name: one the mock does not know tests “user not found”.',
  );
  const keyspace = field(
    'Keyspace',
    { autocomplete: 'off', spellcheck: 'false' },
    'Empty for the mock’s keyspace.',
  );
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'mint-title', novalidate: true },
    h('h2', { id: 'mint-title' }, 'Mint a token pair'),
    h('div', { class: 'form-grid' }, user.wrap, keyspace.wrap),
    errors.el,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Mint')),
    minted,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    errors.clear();
    try {
      const body = mintBody(user.input.value, keyspace.input.value);
      const pair = await mint(body);
      fill(minted, ...pairShown(body.user, pair));
      announce(`Token pair minted for ${body.user}`);
    } catch (error) {
      errors.show(error);
    }
  });
  return form;
}

/**
 * A minted pair: STOKEN, UIDAUTH and the enroll line, each with a copy button.
 * @param {string} user
 * @param {ConsoleTokenPair} pair
 */
function pairShown(user, pair) {
  /** @param {string} label @param {string} copy @param {string} text */
  const line = (label, copy, text) =>
    h('div', { class: 'field' }, h('span', { class: 'label' }, label), codeLine(copy, text));
  return [
    h('h3', {}, `A pair for ${user}`),
    h('p', { class: 'hint' }, 'Each pair enrolls one device, once.'),
    line('STOKEN', 'Copy STOKEN', pair.stoken),
    line('UIDAUTH', 'Copy UIDAUTH', pair.uidauth),
    pair.enroll ? line('Enroll with it', 'Copy ksctl enroll', pair.enroll) : null,
  ];
}

/** @type {import('./dom.js').Column<ConsoleOutboxMessage>[]} */
const OUTBOX_COLUMNS = [
  { title: 'Time', cell: (m) => when(m.time) },
  { title: 'To', cell: (m) => m.to ?? '—' },
  { title: 'Keyspace', cell: (m) => m.keyspace ?? '—' },
  {
    title: 'Code (STOKEN)',
    cell: (m) => h('span', { class: 'code-cell' }, h('code', {}, m.code ?? '')),
    class: 'wrap',
  },
];
