// The trick on the board: the cards in front of the seats that played them, a finished trick's pause and winner, the last trick.
import { t } from '../i18n.js';
import { card, cardOfSeat, given, h, seatName, seatOfCard } from '../ui.js';
import { button } from './parts.js';
import { PACES, settings } from './settings.js';
import { seated, state, update } from './store.js';

/** How long the trick glides to its winner at the end of its pause, in milliseconds. */
const GLIDE_MS = 450;

/** Whether a person (not a bot) plays one of the other seats: then a finished trick stays
 * until the next card or until this player dismisses it. */
const withPeople = (view) => view.seats.some((s) => given(s.name) && !s.bot && !(seated() && s.seat === state.mine.seat));

/** Whether a finished trick stays until the next card or a tap: at a table with people, or
 * at this player's pace (`settings.js`). */
const staying = (view) => withPeople(view) || settings.pace === 'tap';

/** The finished trick the board shows, or null: the deal's last complete trick, from the
 * moment the view has it until the pause (this device's pace) has passed, gliding to its
 * winner at its end, and, where it stays (`staying`), until the next card is played or it is
 * dismissed; or the last trick while the player looks at it. */
function finishedTrick(view, deal) {
  const last = deal.tricks.at(-1);
  if (!last) return null;
  const key = `${deal.deal_no}/${deal.tricks.length}`;
  if (state.finished?.key !== key) {
    state.finished = { key, pausing: true, dismissed: false, gliding: false };
    const held = state.finished;
    const pause = PACES[settings.pace].ms;
    if (!staying(view)) {
      setTimeout(() => {
        held.gliding = true;
        update();
      }, pause - GLIDE_MS);
    }
    setTimeout(() => {
      held.pausing = false;
      update();
    }, pause);
  }
  const finished = state.finished;
  const shown = state.peek || (!finished.dismissed
    && (finished.pausing || (staying(view) && deal.trick.length === 0)));
  return shown ? last : null;
}

/** The trick in the middle of the board: the running one, or a finished one (see
 * `finishedTrick`), each card at the place of the seat that played it (`places[k]` is where
 * `order[k]` sits); its caption, and "Go on" or "Last trick". */
export function trick(view, deal, order, places) {
  const finished = finishedTrick(view, deal);
  const leader = finished ? finished.leader : deal.trick_leader;
  const cards = finished ? finished.cards : deal.trick;
  const playedBy = (seat) => (given(leader) ? cardOfSeat(cards, leader, seat) : undefined);
  const number = finished ? deal.tricks.length : deal.tricks.length + 1;
  const caption = finished
    ? t('trick.takes', { trick: number, who: seatName(view.seats, finished.winner) })
    : given(leader) ? t('trick.leads', { trick: number, who: seatName(view.seats, leader) }) : t('trick.none');
  const dismiss = () => {
    state.finished.dismissed = true;
    update({ peek: false });
  };
  const toward = finished ? places[order.indexOf(finished.winner)] : null;
  const gliding = finished && !state.peek && state.finished.gliding;
  return h('div', {
    class: `trick${finished ? ' finished' : ''}${gliding ? ' gliding' : ''}`, id: 'trick', 'aria-label': caption,
    'data-finished': finished ? number : null, 'data-winner': finished ? finished.winner : null, 'data-toward': toward,
    onclick: finished && !state.peek ? (e) => {
      if (!e.target.closest('button')) dismiss(); // a tap on the finished trick takes it away
    } : null,
  },
  h('p', { class: 'caption' }, caption),
  order.map((seat, k) => {
    const played = playedBy(seat);
    const winner = finished && finished.winner === seat;
    return played
      ? card(played, seat, deal.deal_no, {
        class: `card ${places[k]}${winner ? ' winner' : ''}`, 'data-place': places[k], 'data-won': winner ? 'true' : null,
      })
      : null;
  }),
  h('p', { class: 'trick-buttons' },
    finished && (state.peek || !state.finished.pausing)
      ? button('dismiss-trick', t(state.peek ? 'trick.back' : 'trick.go_on'), dismiss)
      : null,
    !finished && deal.tricks.length
      ? button('last-trick', t('trick.last'), () => update({ peek: true }))
      : null));
}

/** A played trick in one line: who led it, who won it, and its cards with their seats. */
export function trickLine(view, trick, dealNo, label) {
  return h('div', { class: 'last-trick', 'data-winner': trick.winner },
    h('p', {}, t('trick.line', { label, leader: seatName(view.seats, trick.leader), winner: seatName(view.seats, trick.winner) })),
    h('p', { class: 'cards' }, trick.cards.map((c, i) => card(c, seatOfCard(trick.leader, i), dealNo))));
}
