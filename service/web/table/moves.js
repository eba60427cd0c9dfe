// A seat's moves besides its cards: coming back (T3.3), declaring, naming a contract, announcing; its turn clock.
import { call } from '../api.js';
import { t, term } from '../i18n.js';
import { cardNames, given, h, rule, seatName } from '../ui.js';
import { act } from './commands.js';
import { button, timer } from './parts.js';
import { permission, state, update } from './store.js';

/** V4.4: the places in the hand of the cards chosen to give back for an Armut (kept while the
 * page redraws; emptied once they are given). */
const giving = new Set();

function group(title, buttons) {
  return h('div', { class: 'group', role: 'group', 'aria-label': title }, h('p', {}, title), buttons);
}

/** What this seat may do now besides playing a card: the view's `options` (declarations,
 * contracts, Schweinchen, answering an Armut and giving back cards, announcements) and
 * `actions` (coming back), each a button; else whom it waits for. */
export function moves(view, deal) {
  const options = deal.options;
  const cardsHeld = deal.hand.length;
  const groups = [];
  const me = view.seats[state.mine.seat];
  const back = permission(view, 'come_back');
  if (back?.allowed) {
    groups.push(h('div', { class: 'group away' },
      h('p', {}, t(me.status === 'away' ? 'move.away' : 'move.timed_out'), ' ', rule('T3.3', state.rules, false)),
      button('back', t('move.back'), () => act((seat) => call('POST', '/tables/{table_id}/seats/{seat}/back', seat)))));
  }
  if (options.declarations.length) {
    groups.push(group(t('move.declare'), options.declarations.map((d) => button(
      `declare-${d}`, term('declaration', d), () => act((seat) => call('POST', '/tables/{table_id}/seats/{seat}/reservation', { ...seat, body: { declaration: d } }))))));
  }
  if (options.contracts.length) {
    groups.push(group(t('move.contract'), options.contracts.map((c) => button(
      `contract-${c}`, term('game', c), () => act((seat) => call('POST', '/tables/{table_id}/seats/{seat}/contract', { ...seat, body: { contract: c } }))))));
  }
  if (options.schweinchen) { // V3.1: both AD, on one's turn in the play
    groups.push(group(t('move.schweinchen'), [button('schweinchen', t('move.show_schweinchen'),
      () => act((seat) => call('POST', '/tables/{table_id}/seats/{seat}/schweinchen', seat)))]));
  }
  if (options.answer_poverty) { // V4.3: asked in turn whether to take the Armut
    const answer = (accept) => () => act((seat) => call('POST', '/tables/{table_id}/seats/{seat}/poverty/answer', { ...seat, body: { accept } }));
    groups.push(group(t('move.poverty', { who: seatName(view.seats, deal.poverty.poor), count: deal.poverty.given }), [
      button('poverty-accept', t('move.poverty_accept'), answer(true)),
      button('poverty-refuse', t('move.poverty_refuse'), answer(false)),
      rule('V4.3', state.rules, false)]));
  }
  if (given(options.return_cards)) { // V4.4: as many cards back as taken, chosen in the hand
    const count = options.return_cards;
    const chosen = [...giving].filter((i) => i < deal.hand.length);
    groups.push(group(t('move.return_cards', { count }), [
      ...deal.hand.map((c, i) => h('button', {
        type: 'button', 'data-key': `give-${i}`, 'data-card': c, 'aria-pressed': String(giving.has(i)),
        onclick: () => { if (giving.has(i)) giving.delete(i); else giving.add(i); update(); },
      }, cardNames(c).rank, cardNames(c).symbol)),
      h('button', {
        type: 'button', 'data-key': 'poverty-return', disabled: chosen.length !== count,
        onclick: () => {
          const cards = chosen.map((i) => deal.hand[i]);
          giving.clear();
          act((seat) => call('POST', '/tables/{table_id}/seats/{seat}/poverty/return', { ...seat, body: { cards } }));
        },
      }, t('move.give_back')),
      rule('V4.4', state.rules, false)]));
  }
  if (options.announcements.length) {
    groups.push(group(t('move.announce', { count: cardsHeld }), options.announcements.map((a) => button(
      `announce-${a.word}`, [term('word', a.word), h('small', {}, ` ${t('move.until', { count: a.until_cards })}`)],
      () => act((seat) => call('POST', '/tables/{table_id}/seats/{seat}/announce', { ...seat, body: { word: a.word } })),
      t('move.announce_label', { word: term('word', a.word), count: a.until_cards })))));
  }
  const waiting = deal.phase !== 'scored' && given(deal.turn) && deal.turn !== state.mine.seat;
  const mine = view.clock?.seat === state.mine.seat ? view.clock : null;
  return h('section', { class: 'actions', id: 'actions', 'aria-label': t('move.label') },
    deal.bock ? h('p', { class: 'bock' }, t('move.bock')) : null,
    given(deal.forced) && deal.phase !== 'scored' ? h('p', { class: 'forced', 'data-forced': `${deal.forced}` },
      deal.forced === state.mine.seat ? t('move.forced_you') : t('move.forced', { who: seatName(view.seats, deal.forced) }),
      ' ', rule('V6.7', state.rules, false)) : null,
    deal.duty_solo ? h('p', { class: 'duty-solo' }, t('move.duty_solo'), ' ', rule('V6.5', state.rules, false)) : null,
    mine ? h('p', { class: 'your-clock' }, t('move.clock'), ' ', timer(view, mine), ' ', t('move.clock_then'), ' ',
      rule('T3.2', state.rules, false)) : null,
    groups,
    options.cards.length ? h('p', {}, t('move.play')) : null,
    !groups.length && !options.cards.length
      ? h('p', {}, waiting ? t('move.waiting', { who: seatName(view.seats, deal.turn) }) : t('move.nothing'))
      : null);
}
