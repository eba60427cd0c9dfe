// Table talk (T5): short messages from the players and spectators, quick phrases, the host's mutes.
import { call, problemOf } from '../api.js';
import { t } from '../i18n.js';
import { h, seatName, withRule } from '../ui.js';
import { button } from './parts.js';
import { anyPass, at, pass, seated, state, update } from './store.js';

/* What is said comes from the table's talk (`getTableTalk`) and its stream's `talk` messages;
 * the service decides what may be said (a seated player names no card during a deal, T5.2)
 * and refuses it with a problem, shown as every refusal is. */

/** The quick phrases the page offers, in the page's language (none names a card). */
const PHRASES = ['talk.phrase.hello', 'talk.phrase.well_played', 'talk.phrase.thanks', 'talk.phrase.sorry',
  'talk.phrase.moment', 'talk.phrase.congratulations', 'talk.phrase.bye'];

/** Take talk entries (from the talk's list, with its `mutes`, or from the stream), each once,
 * in talk id order, whatever order they came in. */
export function heard(entries, mutes = null) {
  const known = new Set(state.talk.map((e) => e.talk_id));
  const fresh = entries.filter((e) => !known.has(e.talk_id));
  if (mutes) state.talkMutes = mutes;
  else for (const entry of fresh) if (entry.kind !== 'said') mute(entry.seat, entry.kind === 'muted');
  state.talk = [...state.talk, ...fresh].sort((a, b) => a.talk_id - b.talk_id).slice(-50);
  state.talkLast = Math.max(state.talkLast, ...fresh.map((e) => e.talk_id));
  update();
}

function mute(seat, muted) {
  if (seat === null) state.talkMutes = { ...state.talkMutes, spectators: muted };
  else {
    const seats = state.talkMutes.seats.filter((s) => s !== seat);
    state.talkMutes = { ...state.talkMutes, seats: muted ? [...seats, seat].sort() : seats };
  }
}

/** Read what was said (after the last entry known: what a resumed stream left out). */
export async function loadTalk() {
  try {
    const answer = await call('GET', '/tables/{table_id}/talk', {
      params: { ...at, query: { after: state.talkLast || undefined } }, token: anyPass(),
    });
    heard(answer.data.messages, mutesOf(answer.data));
  } catch (error) {
    update({ problem: problemOf(error) });
  }
}

const mutesOf = (talk) => ({ seats: talk.muted_seats, spectators: talk.spectators_muted });

/** Say `text` to the table: as this tab's seat, else as a spectator (with its name). */
async function say(text) {
  try {
    const name = seated() ? undefined : (state.talkName.trim() || undefined);
    const answer = await call('POST', '/tables/{table_id}/talk', {
      params: at, token: seated() ? state.mine.token : pass(), body: { text, name },
    });
    state.talkDraft = '';
    heard([answer.data]);
  } catch (error) {
    state.problems += 1;
    update({ problem: problemOf(error) });
  }
}

/** The host mutes or unmutes `seat` (null: the spectators), T5.3. */
async function hostMute(seat, muted) {
  try {
    const answer = await call('POST', '/tables/{table_id}/talk/mutes', { params: at, token: state.mine.host, body: { seat, muted } });
    heard(answer.data.messages, mutesOf(answer.data));
  } catch (error) {
    update({ problem: problemOf(error) });
  }
}

const silenced = (seat) => (seat === null ? state.talkMutes.spectators : state.talkMutes.seats.includes(seat));

/** One entry in words: who said what, or whom the host muted. */
function line(view, entry) {
  const who = entry.seat === null ? (entry.name || t('talk.spectator')) : seatName(view.seats, entry.seat);
  if (entry.kind !== 'said') {
    const whom = entry.seat === null ? t('talk.spectators') : seatName(view.seats, entry.seat);
    return h('li', { class: 'talk-note', 'data-talk': entry.talk_id }, t(`talk.${entry.kind}`, { who: whom }));
  }
  return h('li', { 'data-talk': entry.talk_id, 'data-seat': entry.seat ?? '' },
    h('strong', {}, who, entry.seat === null ? ` (${t('talk.spectator')})` : '', ': '), entry.text);
}

/** The host's mute switches: one per seat with another person, one for the spectators. */
function mutes(view) {
  if (!state.mine.host) return null;
  const seats = view.seats.filter((s) => s.name && !s.bot && !(seated() && s.seat === state.mine.seat)).map((s) => s.seat);
  return h('p', { class: 'talk-mutes', role: 'group', 'aria-label': t('talk.mutes') },
    [...seats, null].map((seat) => {
      const who = seat === null ? t('talk.spectators') : seatName(view.seats, seat);
      const muted = silenced(seat);
      return button(`talk-mute-${seat ?? 'spectators'}`, t(muted ? 'talk.unmute' : 'talk.mute', { who }),
        () => hostMute(seat, !muted));
    }));
}

/** The talk part: what was said, the field and quick phrases (or why this tab is muted), the
 * host's mutes. */
export function talkPart(view) {
  const me = seated() ? state.mine.seat : null;
  const quiet = silenced(me);
  const form = quiet ? h('p', { class: 'talk-muted', 'data-muted': 'true' }, t('talk.you_are_muted')) : h('form', {
    class: 'talk-say',
    onsubmit: (e) => {
      e.preventDefault();
      if (state.talkDraft.trim()) say(state.talkDraft);
    },
  },
  seated() ? null : [h('label', { for: 'talk-name' }, t('talk.name')), h('input', {
    id: 'talk-name', 'data-key': 'talk-name', maxlength: 40, value: state.talkName, autocomplete: 'nickname',
    oninput: (e) => { state.talkName = e.target.value; },
  })],
  h('label', { for: 'talk-text' }, t('talk.message')),
  h('input', {
    id: 'talk-text', 'data-key': 'talk-text', maxlength: 200, value: state.talkDraft, autocomplete: 'off',
    oninput: (e) => { state.talkDraft = e.target.value; },
  }),
  h('button', { type: 'submit', 'data-key': 'talk-send' }, t('talk.send')),
  h('p', { class: 'talk-phrases', role: 'group', 'aria-label': t('talk.phrases') },
    PHRASES.map((key) => button(`talk-${key}`, t(key), () => say(t(key))))));
  return h('details', {
    class: 'panel talk', id: 'talk', open: state.talkOpen,
    ontoggle: (e) => { state.talkOpen = e.target.open; },
  },
  h('summary', {}, t('talk.title', { count: state.talk.filter((e) => e.kind === 'said').length })),
  h('ol', { class: 'talk-lines', 'aria-live': 'polite' }, state.talk.map((entry) => line(view, entry))),
  form,
  h('p', { class: 'talk-about' }, withRule(t('talk.about'), 'T5.2', state.rules)),
  mutes(view));
}
