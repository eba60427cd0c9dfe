// This seat's hand: its cards as buttons, sorted by the server, the playable ones (the view's `options`) raised.
import { call } from '../api.js';
import { t } from '../i18n.js';
import { cardButton, h } from '../ui.js';
import { act } from './commands.js';
import { state } from './store.js';

/** The hand of the running deal; a playable card plays on a click (and ends a finished
 * trick's time on the board). */
export function hand(deal) {
  const legal = new Set(deal.options.cards);
  const counted = new Map();
  return h('section', {
    id: 'hand', class: `hand${legal.size ? ' choosing' : ''}`, 'aria-labelledby': 'hand-h', tabindex: -1,
  },
    h('h2', { id: 'hand-h', class: 'sr' }, t(legal.size ? 'hand.choose' : 'hand.title')),
    h('div', { class: 'cards' }, deal.hand.map((c) => {
      const n = counted.get(c) ?? 0;
      counted.set(c, n + 1);
      return cardButton(c, state.mine.seat, deal.deal_no, `card-${c}-${n}`, legal.has(c) ? () => {
        if (state.finished) state.finished.dismissed = true; // the next card ends the finished trick's time
        act((seat) => call('POST', '/tables/{table_id}/seats/{seat}/play', { ...seat, body: { card: c } }));
      } : null);
    })));
}
