// @ts-check
/** Paging controls: "51–100 of 20,000" with First, Previous, Next and Last buttons. */
import { count, h } from './dom.js';

/**
 * @param {string} label
 * @param {{ total: number, skip: number, limit: number }} page
 * @param {(skip: number) => void} go called with the skip of the page asked for
 */
export function pager(label, { total, skip, limit }, go) {
  const last = Math.max(0, Math.floor((total - 1) / limit) * limit);
  const from = total === 0 ? 0 : skip + 1;
  const to = Math.min(skip + limit, total);
  /** @type {(text: string, target: number, disabled: boolean, aria: string) => HTMLButtonElement} */
  const button = (text, target, disabled, aria) =>
    h(
      'button',
      {
        type: 'button',
        class: 'quiet small',
        disabled,
        'aria-label': aria,
        onclick: () => go(target),
      },
      text,
    );
  return h(
    'nav',
    { class: 'pager', 'aria-label': label },
    h(
      'span',
      { class: 'pager-text' },
      total === 0 ? 'None' : `${count(from)}–${count(to)} of ${count(total)}`,
    ),
    h(
      'span',
      { class: 'pager-buttons' },
      button('« First', 0, skip === 0, `First page of ${label.toLowerCase()}`),
      button(
        '‹ Previous',
        Math.max(0, skip - limit),
        skip === 0,
        `Previous page of ${label.toLowerCase()}`,
      ),
      button('Next ›', skip + limit, skip + limit >= total, `Next page of ${label.toLowerCase()}`),
      button('Last »', last, skip >= last, `Last page of ${label.toLowerCase()}`),
    ),
  );
}
