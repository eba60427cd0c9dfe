// The board: this seat at the bottom, the others around the trick, each with its name, turn, clock and badges.
import { t, term } from '../i18n.js';
import { h, seatName, seatOfCard } from '../ui.js';
import { timer } from './parts.js';
import { running, seated, state } from './store.js';
import { trick } from './trick.js';

const PLACES = ['bottom', 'left', 'top', 'right']; // this seat, its left (next clockwise), across, its right

/** The board of the running deal: the four seats around the trick (`trick.js`). */
export function board(view, deal) {
  const me = seated() ? state.mine.seat : 0;
  const won = [0, 0, 0, 0];
  for (const played of deal.tricks) won[played.winner] += 1;
  const order = [0, 1, 2, 3].map((k) => seatOfCard(me, k)); // the seats in the order of play from this one
  const middle = trick(view, deal, order, PLACES);
  // busy while events have come that the view does not include yet (it is being fetched)
  return h('section', { class: 'board', 'aria-label': t('board.label'), 'aria-busy': state.since.length > 0 ? 'true' : null },
    order.map((seat, k) => seatBox(view, deal, seat, PLACES[k], won[seat])),
    middle);
}

/** A seat's party as one badge: marked as announced (R6.8) when its `re`/`kontra` was said,
 * so that the word is never shown twice. */
function partyBadge(party, said) {
  const name = term('party', party);
  return h('span', { class: `badge party ${party}${said ? ' said' : ''}`, title: said ? t('seat.party_said', { party: name }) : null },
    name);
}

/** A seat at the table: its name, whose turn it is with the clock, and what is known of it
 * (dealer, Schweinchen, declaration, party, announcements) as badges. */
function seatBox(view, deal, seat, place, won) {
  const info = view.seats[seat];
  const party = deal.parties[seat];
  const declaration = deal.declarations[seat];
  const turn = deal.turn === seat && deal.phase !== 'scored' && running(view);
  const absent = info.status === 'vacant' || info.status === 'away';
  const words = deal.announcements.filter((a) => a.seat === seat).flatMap((a) => a.words);
  const partySaid = party && words.includes(party); // one badge says both
  const badge = (text, kind) => h('span', { class: `badge ${kind}` }, text);
  return h('div', { class: `seat ${place}${turn ? ' turn' : ''}`, 'data-seat-box': seat, 'data-status': info.status },
    h('p', { class: 'name' }, seatName(view.seats, seat), info.bot ? h('small', { class: 'kind' }, ` · ${term('bot', info.bot)}`) : null,
      seat === state.mine.seat && seated() ? h('small', {}, ` ${t('seats.you')}`) : null),
    absent ? h('p', { class: `seat-status ${info.status}` }, t(info.status === 'away' ? 'seat.away' : 'seat.vacant')) : null,
    h('p', { class: 'badges' },
      deal.dealer === seat ? badge(t('seat.dealer'), 'dealer') : null,
      deal.schweinchen === seat ? badge(t('seat.schweinchen'), 'schweinchen') : null,
      declaration && deal.phase !== 'play' ? badge(term('declaration', declaration), 'declaration') : null,
      party ? partyBadge(party, partySaid) : null,
      words.filter((word) => word !== party).map((word) => badge(term('word', word), 'said')),
      h('span', { class: 'count' }, t('seat.cards', { count: deal.hand_sizes[seat] }), ' · ', t('seat.tricks', { count: won }))),
    turn ? h('p', { class: 'to-play' }, t('seat.to_play'), view.clock?.seat === seat ? [' · ', timer(view, view.clock)] : null) : null);
}
