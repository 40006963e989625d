// The page for an unknown or expired table, and for any unknown address.

import { h } from '../ui.js';

/**
 * @param {HTMLElement} root
 * @param {'table'|'page'} kind
 */
export function notFoundScreen(root, kind) {
  const title = kind === 'table' ? 'notfound.title' : 'notfound.page';
  const body = kind === 'table' ? 'notfound.body' : 'notfound.page_body';
  root.append(h('section', { class: 'card notfound', 'aria-labelledby': 'nf-title' },
    h('h1', { id: 'nf-title', t: title }),
    h('p', { t: body }),
    h('a', { href: '/', class: 'button primary', 'data-link': true, t: 'notfound.home' })));
  return {};
}
