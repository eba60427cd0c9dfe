// The page of a table this tab may not see: the problem, and for a private table a field for its link (T1.1).
import { hold, invitationIn, problemOf } from '../api.js';
import { t } from '../i18n.js';
import { h, problemBox } from '../ui.js';
import { seated, state, table } from './store.js';

/** What the page shows instead of a table it may not see: the problem, and, for what may be
 * a private table (which answers 404 to whoever holds none of its credentials, as an unknown
 * table does, T1.1), a field for its invitation link (or a personal link). */
export function door(error) {
  const problem = problemOf(error);
  // a private table answers a caller without its credentials 401 (or 404): ask for the link
  const closed = (problem.status === 401 || problem.status === 404) && !seated();
  return [h('h1', {}, t('table.unnamed')), problemBox(problem, state.rules),
    closed ? h('form', {
      class: 'panel', id: 'enter',
      onsubmit: (e) => {
        e.preventDefault();
        const text = e.target.elements.code.value.trim();
        if (/#(rejoin|host)=/.test(text)) { // a personal link: its fragment opens the seat
          location.hash = text.slice(text.indexOf('#'));
          location.reload();
          return;
        }
        const code = invitationIn(text);
        if (!code) return;
        hold(table, { invitation: code });
        location.reload();
      },
    },
    h('p', {}, t('door.about')),
    h('p', {}, h('label', { for: 'code' }, t('door.code')), h('input', { id: 'code', name: 'code', required: true, autocomplete: 'off' })),
    h('p', {}, h('button', { type: 'submit' }, t('door.open')))) : null,
    h('p', {}, h('a', { href: '/' }, t('door.lobby')))];
}
