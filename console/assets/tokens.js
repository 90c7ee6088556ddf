/**
 * Tokens: mint a STOKEN/UIDAUTH pair for a user (any name, so "user not found" can be tried),
 * with copy buttons and the `ksctl enroll` line that uses it; and the outbox of registration
 * codes the portal "e-mailed".
 */
import { api, get } from './api.js';
import { announce, codeLine, errorBox, field, fill, h, table, when } from './dom.js';

export function mount(main) {
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
      const body = { user: user.input.value.trim() };
      if (keyspace.input.value.trim()) body.keyspace = keyspace.input.value.trim();
      const pair = await api('POST', 'tokens', body);
      fill(
        minted,
        h('h3', {}, `A pair for ${body.user}`),
        h('p', { class: 'hint' }, 'Each pair enrolls one device, once.'),
        h(
          'div',
          { class: 'field' },
          h('span', { class: 'label' }, 'STOKEN'),
          codeLine('Copy STOKEN', pair.stoken),
        ),
        h(
          'div',
          { class: 'field' },
          h('span', { class: 'label' }, 'UIDAUTH'),
          codeLine('Copy UIDAUTH', pair.uidauth),
        ),
        pair.enroll
          ? h(
              'div',
              { class: 'field' },
              h('span', { class: 'label' }, 'Enroll with it'),
              codeLine('Copy ksctl enroll', pair.enroll),
            )
          : null,
      );
      announce(`Token pair minted for ${body.user}`);
    } catch (error) {
      errors.show(error);
    }
  });
  const outbox = h('div');
  const outboxErrors = errorBox();
  fill(
    main,
    h('div', { class: 'page-head' }, h('h1', {}, 'Tokens')),
    form,
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
      const answer = await get('outbox');
      const messages = Array.isArray(answer) ? answer : (answer?.messages ?? answer?.outbox ?? []);
      outboxErrors.clear();
      fill(
        outbox,
        table(
          'Outbox messages',
          [
            { title: 'Time', cell: (m) => when(m.time) },
            { title: 'To', cell: (m) => m.to ?? '—' },
            { title: 'Keyspace', cell: (m) => m.keyspace ?? '—' },
            {
              title: 'Code (STOKEN)',
              cell: (m) => h('span', { class: 'code-cell' }, h('code', {}, m.code ?? '')),
              class: 'wrap',
            },
          ],
          [...messages].reverse(),
          { empty: 'No e-mail sent yet.' },
        ),
      );
    } catch (error) {
      outboxErrors.show(error);
    }
  }
  void refresh();
  return {};
}
