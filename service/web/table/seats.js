// The table's seats: its options (who may join, the turn clock), who sits where, sitting down and leaving (T2).
import { t, term } from '../i18n.js';
import { given, h, seatName } from '../ui.js';
import { leave, sit } from './commands.js';
import { confirmable, refused, timer } from './parts.js';
import { permission, running, seated, state } from './store.js';

/** The table's options and state: who may join, the turn clock and whose turn runs. */
function facts(view) {
  const clock = view.clock;
  return h('p', { class: 'small', id: 'table-facts', 'data-status': view.status, 'data-visibility': view.visibility },
    t('facts.table', { visibility: term('visibility', view.visibility) }), ' · ', term('table_status', view.status), ' · ',
    given(view.turn_seconds) ? t('facts.clock', { seconds: view.turn_seconds }) : t('facts.no_clock'),
    clock ? [' · ', h('span', { id: 'clock' }, t('facts.to_act', { who: seatName(view.seats, clock.seat) }), ' ', timer(view, clock))] : null);
}

function seatLine(view, info) {
  const who = given(info.name) ? `${info.name}${info.bot ? ` (${term('bot', info.bot)})` : ''}` : '';
  const mine = seated() && info.seat === state.mine.seat;
  return h('li', { 'data-seat-line': info.seat, 'data-status': info.status },
    t('seats.line', { seat: info.seat }), ' ', who, who ? ' · ' : '',
    h('span', { class: `seat-status ${info.status}` }, term('seat_status', info.status)), mine ? ` ${t('seats.you')}` : '');
}

/** Leaving the seat (T2), after a "yes", when the view's `actions` allow it; else the button
 * is disabled, with the service's reason and its rule (T2.3: not while the seat is the one
 * to act). */
function leaveButton(view) {
  const allowance = permission(view, 'leave');
  if (!allowance) return null;
  if (!allowance.allowed) return refused('leave', t('seats.leave'), allowance);
  return confirmable('leave', t('seats.leave'), t(view.status === 'playing' ? 'seats.leave_vacant' : 'seats.leave_free'),
    t('seats.leave_yes'), leave);
}

/** The seats part: the table's facts and link, who sits where, and sitting down (with a name,
 * on a free or vacant seat) or leaving. */
export function seating(view) {
  const empty = view.seats.filter((s) => s.status === 'free' || s.status === 'vacant');
  const sitting = !seated() && running(view) && empty.length > 0 && h('form', {
    class: 'sit',
    onsubmit: (e) => {
      e.preventDefault();
      sit(Number(e.submitter.value));
    },
  },
  h('label', { for: 'sit-name' }, t('seats.your_name')),
  h('input', {
    id: 'sit-name', 'data-key': 'sit-name', required: true, maxlength: 40, autocomplete: 'nickname', value: state.sitName,
    oninput: (e) => { state.sitName = e.target.value; },
  }),
  empty.map((s) => h('button', { type: 'submit', value: s.seat, 'data-key': `sit-${s.seat}` },
    t(s.status === 'vacant' ? 'seats.take_vacant' : 'seats.sit', { seat: s.seat }))));
  const leaving = seated() && running(view) && permission(view, 'leave') && h('p', { class: 'mine' }, leaveButton(view));
  return h('section', { class: 'panel', id: 'seats', 'aria-labelledby': 'seating-h' },
    h('h2', { id: 'seating-h' }, t('menu.seats')),
    facts(view),
    // a private table opens only with its invitation (T1.1): its host shares that link instead
    view.visibility === 'public'
      ? h('p', { class: 'small' }, t('seats.link'), ' ', h('a', { href: location.pathname }, location.origin + location.pathname))
      : null,
    view.status === 'open' ? h('p', {}, t('seats.starts')) : null,
    h('ul', {}, view.seats.map((info) => seatLine(view, info))),
    sitting || null,
    leaving || null);
}
