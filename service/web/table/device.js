// What this browser keeps of the table (its seat, the host role): the personal rejoin link, and forgetting them here.
import { forget } from '../api.js';
import { t } from '../i18n.js';
import { rejoinLink } from '../rejoin.js';
import { h } from '../ui.js';
import { button, confirmable, copy } from './parts.js';
import { state, table } from './store.js';

/** What this browser keeps of the table (its seat, the host role): the personal rejoin link
 * that opens them on another device, and forgetting them on this one. */
export function device() {
  const link = rejoinLink(table, state.mine);
  if (!link) return null;
  return h('section', { class: 'panel', id: 'device', 'aria-labelledby': 'device-h' },
    h('h2', { id: 'device-h' }, t('menu.device')),
    h('p', {}, t(state.mine.host ? 'device.keeps_host' : 'device.keeps')),
    h('p', {}, h('label', { for: 'rejoin-link' }, t('device.link')),
      h('input', {
        id: 'rejoin-link', 'data-key': 'rejoin-link', readonly: true, value: link, size: 40,
        onfocus: (e) => e.target.select(),
      })),
    h('p', {}, button('copy-rejoin', t('device.copy'), () => copy(link, 'rejoin-link')), ' ',
      h('span', { role: 'status' }, state.copied === 'rejoin-link' ? state.copiedText : '')),
    h('p', {}, confirmable('forget', t('device.forget'), t('device.forget_question'), t('device.forget_yes'), () => {
        forget(table);
        location.reload();
      })));
}
