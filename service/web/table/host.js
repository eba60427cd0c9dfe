// The host's controls: bots for empty seats, vacating a seat (T2.4), the invitation (T1.2), closing (T4.1), abandoning (T4.2).
import { call, invitationLink, problemOf, schema } from '../api.js';
import { t, term } from '../i18n.js';
import { given, h } from '../ui.js';
import { asHost, rotateInvitation, seatBots } from './commands.js';
import { button, confirmable, copy } from './parts.js';
import { at, atSeat, permission, running, seated, state, table, update } from './store.js';

/** The host's controls (with the host token): bots for the empty seats, vacating a bot's or
 * an away seat (T2.4), the invitation link of a private table and a new one (T1.2), closing
 * (T4.1) and abandoning (T4.2). Which seats are empty is the view's, which life actions the
 * service allows the host its `actions`. */
export function hosting(view) {
  if (!state.mine.host || !running(view)) return null;
  const empty = view.seats.filter((s) => s.status === 'free' || s.status === 'vacant');
  // this tab's own seat leaves with "Leave the seat"
  const replaceable = view.seats.filter((s) => permission(view, 'vacate', s.seat)?.allowed && !(seated() && s.seat === state.mine.seat));
  const bots = empty.length > 0 && h('form', {
    class: 'bots',
    onsubmit: (e) => {
      e.preventDefault();
      const one = e.submitter?.value;
      seatBots(one ? [Number(one)] : empty.map((s) => s.seat));
    },
  },
  h('label', { for: 'bot-kind' }, t('host.bot')),
  h('select', { id: 'bot-kind', 'data-key': 'bot-kind', onchange: (e) => { state.botKind = e.target.value; } },
    botKinds().map((kind) => h('option', { value: kind, selected: kind === state.botKind }, term('bot', kind)))),
  h('button', { type: 'submit', 'data-key': 'bots' }, t('host.seat_bots', { count: empty.length })),
  empty.length > 1 ? empty.map((s) => h('button', { type: 'submit', value: s.seat, 'data-key': `bot-${s.seat}` }, t('host.bot_on', { seat: s.seat }))) : null);
  return h('section', { class: 'panel', id: 'host', 'aria-labelledby': 'host-h' },
    h('h2', { id: 'host-h' }, t('host.title')),
    invitation(view),
    bots || null,
    replaceable.length ? h('p', { class: 'vacate' }, replaceable.map((s) => button(`vacate-${s.seat}`,
      t(s.status === 'away' ? 'host.vacate_away' : 'host.vacate', { seat: s.seat, name: s.name }),
      () => asHost((token) => call('DELETE', '/tables/{table_id}/seats/{seat}', { params: atSeat(s.seat), token }))))) : null,
    h('p', {}, permission(view, 'close')?.allowed
      ? confirmable('close', t('host.close'), t('host.close_question'), t('host.close_yes'),
        () => asHost((token) => call('POST', '/tables/{table_id}/close', { params: at, token })))
      : null,
    permission(view, 'abandon')?.allowed
      ? confirmable('abandon', t('host.abandon'), t('host.abandon_question'), t('host.abandon_yes'),
        () => asHost((token) => call('POST', '/tables/{table_id}/abandon', { params: at, token })))
      : null));
}

/** The invitation link of a private table, for its host to share (T1.1). */
function invitation(view) {
  const code = state.mine.invitation;
  if (!code || view.visibility !== 'private') return null;
  const link = invitationLink(table, code);
  const seatsEmpty = view.seats.some((s) => !given(s.name)); // open by itself while seats are empty
  return h('details', {
    id: 'invite', open: state.inviteOpen ?? seatsEmpty,
    ontoggle: (e) => {
      if (e.target.open !== (state.inviteOpen ?? seatsEmpty)) state.inviteOpen = e.target.open;
    },
  },
  h('summary', {}, t('invite.title')),
  h('p', {}, t('invite.about')),
  h('p', {}, h('label', { for: 'invitation-link' }, t('invite.link')),
    h('input', {
      id: 'invitation-link', 'data-key': 'invitation-link', readonly: true, value: link, size: 40,
      onfocus: (e) => e.target.select(),
    })),
  h('p', {}, button('copy', t('invite.copy'), () => copy(link, 'invitation-link')), ' ',
    h('span', { role: 'status' }, state.copied === 'invitation-link' ? state.copiedText : '')),
  permission(view, 'rotate_invitation')?.allowed
    ? h('p', {}, confirmable('rotate', t('invite.rotate'), t('invite.rotate_question'), t('invite.rotate_yes'), rotateInvitation))
    : null);
}

let kinds = null;
/** The bot kinds the API offers (its schema's BotKind), once the schema is here. */
function botKinds() {
  if (kinds === null) {
    kinds = [];
    schema().then((spec) => {
      kinds = spec.components.schemas.BotKind.enum;
      state.botKind ??= kinds.at(-1); // the API lists its kinds weakest first
      update();
    }, (error) => update({ problem: problemOf(error) }));
  }
  return kinds;
}
