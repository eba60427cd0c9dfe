// The table page: a seat's page when this tab holds that seat's token, else a spectator's
// (at a private table, with the host token or the invitation code this tab holds: an
// invitation link brings the code in its fragment, T1.1). The host also gets the host's
// controls: bots, vacating, the invitation link, closing and abandoning (T2, T4).
// State = the last view the server sent + the stream's events since; everything drawn
// comes from that state. What may be played or said now is the view's `options`, whose turn
// runs until when is its `clock`: the page decides no rule, and the server referees every
// click.
import {
  call, download, follow, forget, held, hold, invitationIn, invitationLink, meta, schema, takeInvitation,
} from './api.js';
import { rejoinLink, seatOf, takeRejoin } from './rejoin.js';
import { loadLanguage, ruleTexts, t, term } from './i18n.js';
import {
  card, cardButton, describe, fill, given, h, plain, problemBox, problemOf, rule, said, scoreLines, seatName, signed,
  timeLeft,
} from './ui.js';

const table = decodeURIComponent(location.pathname.split('/')[2]);
takeInvitation(table);
takeRejoin(table);
const content = h('div', { class: 'table-page' });
const live = h('p', { id: 'live', class: 'live', 'aria-live': 'polite' });

const state = {
  mine: held(table), // {seat, token, host, invitation} held by this browser
  view: null, // the last view
  version: 0, // its table version
  latest: 0, // the newest version known, from the view or an event
  streamed: null, // the id of the last event the stream brought
  since: [], // the events after the view
  log: [], // every event received on this page, with the deal it belongs to
  deal: null, // the deal the next events belong to
  sheet: null, // the scoresheet
  result: null, // the last deal scored (a deal_scored event)
  record: null, // that deal's record, for its last trick
  resultClosed: null, // the deal whose result this player closed
  standingsClosed: false, // whether this player closed the final standings
  finished: null, // the finished trick on the board: {key, pausing, dismissed}
  peek: false, // whether the player looks at the last trick
  problem: null,
  problems: 0, // how many refusals this page has shown
  from: null, // the version the page's stream started after
  connection: 'connecting',
  opened: 0,
  spoken: [],
  logOpen: false,
  inviteOpen: null, // whether the invitation panel is open (null: open while a seat is empty)
  copied: '', // the id of the field whose link was copied last
  copiedText: '',
  confirming: null, // the data-key of the command waiting for a "yes"
  sending: false,
  sitName: '',
  botKind: null,
  rules: {},
  types: [],
};

/** The path parameters of this table's operations, of a seat's. */
const at = { path: { table_id: table } };
/** @param {number} seat */
const atSeat = (seat) => ({ path: { table_id: table, seat } });
const seated = () => state.mine.token !== undefined;
/** What opens a private table to this tab as a spectator (T1.1): the host token or the
 * invitation; a public table needs neither. */
const pass = () => state.mine.host ?? state.mine.invitation;
/** What opens what any viewer may see (the scoresheet, scored deals, the export). */
const anyPass = () => pass() ?? state.mine.token;
const running = (view) => view.status === 'open' || view.status === 'playing';
const SPOKEN_EVENTS = new Set([
  'deal_dealt', 'game_type_fixed', 'card_played', 'trick_won', 'marriage_clarified', 'announced',
  'deal_scored', 'session_finished', 'seat_left', 'turn_timed_out', 'seat_away', 'seat_back',
  'table_closed', 'session_abandoned',
]);
const SHEET_EVENTS = new Set([
  'seat_taken', 'seat_left', 'session_started', 'deal_scored', 'session_finished', 'session_abandoned',
]);

// --- talking to the service ------------------------------------------------------------

/** The view as this tab may see it: the seat's own, or the public one. */
function fetchView() {
  const query = { min_version: state.latest || undefined };
  const version = state.view ? state.version : undefined;
  if (seated()) {
    return call('GET', '/tables/{table_id}/seats/{seat}', {
      params: { ...atSeat(state.mine.seat), query }, version, token: state.mine.token,
    });
  }
  return call('GET', '/tables/{table_id}', { params: { ...at, query }, version, token: pass() });
}

/** Take a newer view: the events it includes are no longer "since". */
function accept(version, view) {
  if (!view || version < state.version) return;
  state.view = view;
  state.version = version;
  state.latest = Math.max(state.latest, version);
  state.since = state.since.filter((event) => event.id > version);
  state.deal ??= view.deal?.deal_no ?? null;
  render();
}

/** This tab's seat token no longer works, or its player left (T2): forget it; the page is a
 * spectator's from the next view on (the seat's view is dropped, its hand with it). */
function forgetSeat() {
  hold(table, { seat: null, token: null });
  state.mine = held(table);
  state.view = null;
  state.version = 0;
}

/** Whether a request failed because this tab's seat token no longer opens the seat (at a
 * private table, where a token that opens nothing finds no table: 404, T1.1). */
const seatGone = (error) => seated() && [401, 403, 404].includes(error.status);

let refreshing = false;
let again = false;
/** Fetch the view again (one request at a time; once more if events came meanwhile). A seat
 * token that stopped working (its player left, or the host vacated the seat) is forgotten
 * and the stream followed as a spectator. */
async function refresh() {
  if (refreshing) {
    again = true;
    return;
  }
  refreshing = true;
  await showingProblems(async () => {
    do {
      again = false;
      let answer;
      try {
        answer = await fetchView();
      } catch (error) {
        if (!seatGone(error)) throw error;
        forgetSeat();
        connect();
        again = true;
        continue;
      }
      if (state.problem?.status === 0) state.problem = null; // the service answers again
      if (answer.status !== 304) accept(answer.version, answer.data);
    } while (again);
  });
  refreshing = false;
}

/** Run `work`; if it fails, the failure is shown as the page's problem. */
async function showingProblems(work) {
  try {
    await work();
  } catch (error) {
    state.problem = problemOf(error);
    render();
  }
}

const loadSheet = () => showingProblems(async () => {
  state.sheet = (await call('GET', '/tables/{table_id}/scoresheet', {
    token: anyPass(), params: { ...at, query: { min_version: state.latest || undefined } },
  })).data;
  render();
});

/** A scored deal's record (public once scored, R4.3): its last trick is shown after it. */
const loadRecord = (dealNo) => showingProblems(async () => {
  state.record = (await call('GET', '/tables/{table_id}/deals/{deal_no}', {
    params: { path: { table_id: table, deal_no: dealNo } }, token: anyPass(),
  })).data;
  render();
});

/** Send a command (one at a time: `body[data-sending]` says one is on its way). A refusal is
 * shown with its rule and counted, and the view is fetched again: the server decides what is
 * possible. */
async function command(work) {
  if (state.sending) return;
  state.sending = true;
  document.body.dataset.sending = 'true';
  try {
    await work();
    state.problem = null;
  } catch (error) {
    state.problem = problemOf(error);
    state.problems += 1;
    refresh();
  } finally {
    state.sending = false;
    document.body.dataset.sending = 'false';
    state.confirming = null;
    render();
  }
}

/** A command of this tab's seat, sent by `request` with the seat's path parameters and
 * token; the answer is the seat's new view.
 * @param {(seat: {params: {path: {table_id: string, seat: number}}, token: string}) =>
 *   Promise<{data: import('./api.js').Schemas['CommandResponse']}>} request */
const act = (request) => command(async () => {
  const answer = await request({ params: atSeat(state.mine.seat), token: state.mine.token });
  accept(answer.data.version, answer.data.view);
});

/** Sit down on a free or vacant seat (T2.2), with the invitation of a private table (T1.1). */
const sit = (seat) => command(async () => {
  const taken = (await call('POST', '/tables/{table_id}/seats', {
    params: at,
    body: { name: state.sitName.trim(), seat, invitation: state.mine.invitation },
  })).data;
  hold(table, { seat: taken.seat, token: taken.token });
  state.mine = held(table);
  accept(taken.version, taken.view);
  connect();
});

/** Leave this tab's seat (T2): the token stops working, the page is a spectator's. */
const leave = () => command(async () => {
  const answer = await call('DELETE', '/tables/{table_id}/seats/{seat}', { params: atSeat(state.mine.seat), token: state.mine.token });
  forgetSeat();
  accept(answer.data.version, answer.data.view);
  connect();
});

/** Learn of a version a command made, and fetch the view of this tab anew. */
function made(version) {
  state.latest = Math.max(state.latest, version);
  return refresh();
}

/** A command of the host's, sent by `request` with the host token: its answer is the public
 * view, so the page fetches its own.
 * @param {(token: string) => Promise<{data: {version: number}}>} request */
const asHost = (request) => command(async () => {
  await made((await request(state.mine.host)).data.version);
});

const seatBots = (seats) => command(async () => {
  for (const seat of seats) {
    await made((await call('POST', '/tables/{table_id}/bots', { params: at, token: state.mine.host, body: { kind: state.botKind, seat } })).data.version);
  }
});

const exportSession = () => command(() => download('/tables/{table_id}/export', {
  params: at, token: anyPass(), filename: `doko-${table}.json`,
}));

let stream = null;
/** Follow the table's events as this tab may see them, from the last one received (or the
 * version of the page's first view): with the seat's token, else as a spectator (at a private
 * table with the host token or the invitation, which the stream takes in a header). A stream
 * opened anew (sitting down, leaving) so goes on where the last one stopped. */
function connect() {
  stream?.close();
  state.opened = 0;
  state.from ??= state.latest;
  stream = follow(table, {
    token: state.mine.token,
    secret: seated() ? undefined : pass(),
    after: state.streamed ?? state.from,
    types: state.types,
    onEvent: received,
    onStatus: (now) => {
      state.connection = now;
      // Back after a lost connection: the stream resumes by itself, the view is fetched anew
      // (also when the stream was refused: perhaps the seat's token no longer works).
      if ((now === 'live' && state.opened++ > 0) || now === 'lost') refresh();
      showConnection();
    },
  });
}

function received(event) {
  if (event.type === 'deal_dealt') state.deal = event.data.deal_no;
  state.log.push({ ...event, deal: state.deal });
  state.streamed = event.id;
  state.latest = Math.max(state.latest, event.id);
  if (event.id > state.version) state.since.push(event);
  if (event.type === 'deal_scored') {
    state.result = event.data;
    loadRecord(event.data.deal_no);
  }
  if (SPOKEN_EVENTS.has(event.type)) {
    state.spoken = [...state.spoken, plain(describe(event, state.view?.seats, state.deal))].slice(-3);
  }
  if (SHEET_EVENTS.has(event.type)) loadSheet();
  render();
  refresh();
}

// --- drawing -------------------------------------------------------------------------------

function showConnection() {
  const text = { live: t('connection.live'), connecting: t('connection.connecting'), reconnecting: t('connection.lost'), lost: t('connection.lost') };
  const status = document.getElementById('status');
  status.textContent = text[state.connection];
  status.dataset.connection = state.connection;
}

function phaseText(view, deal) {
  if (deal.phase === 'play' || deal.phase === 'scored') {
    const game = term('game', deal.game_type ?? 'normal');
    const text = given(deal.declarer) ? t('table.game_by', { game, declarer: seatName(view.seats, deal.declarer) }) : game;
    return deal.phase === 'scored' ? t('table.scored', { game: text }) : text;
  }
  return term('phase', deal.phase);
}

/** The time left of the running turn (the view's `clock`), counted down by this page. */
function timer(view, clock) {
  if (!clock?.deadline) return null;
  return h('span', {
    class: 'timer', role: 'timer', 'data-deadline': clock.deadline, 'data-clock-seat': clock.seat,
    'aria-label': t('clock.left_for', { who: seatName(view.seats, clock.seat) }),
  }, timeLeft(clock.deadline));
}

/** What happened to the table, if its life is over (T4, R1.3). */
function ending(view) {
  const over = {
    closed: [t('ending.closed'), ' ', rule('T4.1', state.rules, false)],
    abandoned: [t('ending.abandoned'), ' ', rule('T4.2', state.rules, false)],
    finished: [t('ending.finished')],
  }[view.status];
  if (!over) return null;
  return h('div', { class: 'ending', id: 'ending', 'data-status': view.status },
    h('p', {}, h('strong', {}, over)),
    view.status !== 'closed' ? h('p', {}, h('button', { type: 'button', 'data-key': 'export', onclick: exportSession },
      t('export.download')), ' ', t('export.check'), ' ', h('code', {}, 'doko verify --file')) : null);
}

/** The parts of the page behind the board, in the page's menu. */
const MENU = [['seats', 'menu.seats'], ['host', 'menu.host'], ['device', 'menu.device'],
  ['tricks', 'menu.announcements'], ['sheet', 'menu.sheet'], ['log', 'menu.log']];

/** The table's heading, with the menu of the parts of the page behind the board that are
 * there now (`present`: their ids). */
function heading(view, present) {
  const deal = view.deal;
  return h('header', { class: 'table-head' },
    h('h1', {}, view.name || t('table.unnamed')),
    h('p', { class: 'where' },
      seated() ? t('table.you_play', { name: seatName(view.seats, state.mine.seat), seat: state.mine.seat }) : t('table.watching'),
      deal ? ` · ${t('table.deal', { deal: deal.deal_no, deals: view.deals, dealer: seatName(view.seats, deal.dealer) })} · ${phaseText(view, deal)}` : ''),
    h('nav', { class: 'menu', 'aria-label': t('menu.label') },
      MENU.filter(([id]) => present.includes(id)).map(([id, label]) => h('a', { href: `#${id}`, 'data-menu': id }, t(label)))),
    ending(view));
}

/** The table's options and state: who may join, the turn clock and whose turn runs. */
function facts(view) {
  const clock = view.clock;
  return h('p', { class: 'small', id: 'table-facts', 'data-status': view.status, 'data-visibility': view.visibility },
    t('facts.table', { visibility: term('visibility', view.visibility) }), ' · ', term('table_status', view.status), ' · ',
    given(view.turn_seconds) ? t('facts.clock', { seconds: view.turn_seconds }) : t('facts.no_clock'),
    clock ? [' · ', h('span', { id: 'clock' }, t('facts.to_act', { who: seatName(view.seats, clock.seat) }), ' ', timer(view, clock))] : null);
}

/** A command that waits for a "yes" first (it cannot be taken back). */
function confirmable(key, label, question, yes, run) {
  if (state.confirming !== key) {
    return button(key, label, () => {
      state.confirming = key;
      render();
      /** @type {HTMLElement | null} */ (document.querySelector(`[data-key="${key}-yes"]`))?.focus();
    });
  }
  return h('span', { class: 'confirm', role: 'group', 'aria-label': question },
    h('span', {}, question, ' '),
    button(`${key}-yes`, yes, run), ' ',
    button(`${key}-no`, t('confirm.no'), () => {
      state.confirming = null;
      render();
    }));
}

function seatLine(view, info) {
  const who = given(info.name) ? `${info.name}${info.bot ? ` (${term('bot', info.bot)})` : ''}` : '';
  const mine = seated() && info.seat === state.mine.seat;
  return h('li', { 'data-seat-line': info.seat, 'data-status': info.status },
    t('seats.line', { seat: info.seat }), ' ', who, who ? ' · ' : '',
    h('span', { class: `seat-status ${info.status}` }, term('seat_status', info.status)), mine ? ` ${t('seats.you')}` : '');
}

/** Leaving the seat (T2), after a "yes". Not while this seat is the one to act (its view
 * offers it a declaration, a contract or a card): then the button is disabled, with the
 * reason and its rule (T2.3). */
function leaveButton(view) {
  const options = view.deal?.options;
  const acting = options && (options.declarations.length || options.contracts.length || options.cards.length);
  if (acting) {
    return [h('button', { type: 'button', 'data-key': 'leave', disabled: true, 'aria-describedby': 'leave-why' }, t('seats.leave')),
      ' ', h('span', { id: 'leave-why', class: 'why' }, t('seats.leave_on_turn'), ' ', rule('T2.3', state.rules))];
  }
  return confirmable('leave', t('seats.leave'), t(view.status === 'playing' ? 'seats.leave_vacant' : 'seats.leave_free'),
    t('seats.leave_yes'), leave);
}

function seating(view) {
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
  const leaving = seated() && running(view) && h('p', { class: 'mine' }, leaveButton(view));
  return h('section', { class: 'panel', id: 'seats', 'aria-labelledby': 'seating-h' },
    h('h2', { id: 'seating-h' }, t('menu.seats')),
    facts(view),
    h('p', { class: 'small' }, t('seats.link'), ' ', h('a', { href: location.pathname }, location.origin + location.pathname)),
    view.status === 'open' ? h('p', {}, t('seats.starts')) : null,
    h('ul', {}, view.seats.map((info) => seatLine(view, info))),
    sitting || null,
    leaving || null);
}

/** The host's controls (with the host token): bots for the empty seats, vacating a bot's or
 * an away seat (T2.4), the invitation link of a private table, closing (T4.1) and
 * abandoning (T4.2). Which seats are empty, bots or away is the view's. */
function hosting(view) {
  if (!state.mine.host || !running(view)) return null;
  const empty = view.seats.filter((s) => s.status === 'free' || s.status === 'vacant');
  // this tab's own seat leaves with "Leave the seat"
  const replaceable = view.seats.filter((s) => (s.bot || s.status === 'away') && !(seated() && s.seat === state.mine.seat));
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
    h('p', {}, view.status === 'open'
      ? confirmable('close', t('host.close'), t('host.close_question'), t('host.close_yes'),
        () => asHost((token) => call('POST', '/tables/{table_id}/close', { params: at, token })))
      : confirmable('abandon', t('host.abandon'), t('host.abandon_question'), t('host.abandon_yes'),
        () => asHost((token) => call('POST', '/tables/{table_id}/abandon', { params: at, token })))));
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
    h('span', { role: 'status' }, state.copied === 'invitation-link' ? state.copiedText : '')));
}

/** Copy a link to the clipboard (or select its field, for Ctrl+C); `field` is its input's id. */
async function copy(link, field) {
  state.copied = field;
  try {
    await navigator.clipboard.writeText(link);
    state.copiedText = t('copy.done');
  } catch {
    /** @type {HTMLInputElement | null} */ (document.getElementById(field))?.select();
    state.copiedText = t('copy.selected');
  }
  render();
}

/** What this browser keeps of the table (its seat, the host role): the personal rejoin link
 * that opens them on another device, and forgetting them on this one. */
function device() {
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

let kinds = null;
/** The bot kinds the API offers (its schema's BotKind), once the schema is here. */
function botKinds() {
  if (kinds === null) {
    kinds = [];
    schema().then((spec) => {
      kinds = spec.components.schemas.BotKind.enum;
      state.botKind ??= kinds.at(-1); // the API lists its kinds weakest first
      render();
    }, (error) => {
      state.problem = problemOf(error);
      render();
    });
  }
  return kinds;
}

const PLACES = ['bottom', 'left', 'top', 'right']; // this seat, its left (next clockwise), across, its right
/** How long a finished trick stays on the board at least, in milliseconds. */
const TRICK_PAUSE_MS = 1500;

/** Whether a person (not a bot) plays one of the other seats: then a finished trick stays
 * until the next card or until this player dismisses it. */
const withPeople = (view) => view.seats.some((s) => given(s.name) && !s.bot && !(seated() && s.seat === state.mine.seat));

/** The finished trick the board shows, or null: the deal's last complete trick, from the
 * moment the view has it until the pause has passed and, at a table with people, until the
 * next card is played or it is dismissed; or the last trick while the player looks at it. */
function finishedTrick(view, deal) {
  const last = deal.tricks.at(-1);
  if (!last) return null;
  const key = `${deal.deal_no}/${deal.tricks.length}`;
  if (state.finished?.key !== key) {
    state.finished = { key, pausing: true, dismissed: false };
    const held = state.finished;
    setTimeout(() => {
      held.pausing = false;
      render();
    }, TRICK_PAUSE_MS);
  }
  const finished = state.finished;
  const shown = state.peek || (!finished.dismissed
    && (finished.pausing || (withPeople(view) && deal.trick.length === 0)));
  return shown ? last : null;
}

function board(view, deal) {
  const me = seated() ? state.mine.seat : 0;
  const won = [0, 0, 0, 0];
  for (const trick of deal.tricks) won[trick.winner] += 1;
  const order = [0, 1, 2, 3].map((k) => (me + k) % 4);
  const finished = finishedTrick(view, deal);
  const leader = finished ? finished.leader : deal.trick_leader;
  const cards = finished ? finished.cards : deal.trick;
  const playedBy = (seat) => (given(leader) ? cards[(seat - leader + 4) % 4] : undefined);
  const number = finished ? deal.tricks.length : deal.tricks.length + 1;
  const caption = finished
    ? t('trick.takes', { trick: number, who: seatName(view.seats, finished.winner) })
    : given(leader) ? t('trick.leads', { trick: number, who: seatName(view.seats, leader) }) : t('trick.none');
  const dismiss = () => {
    state.finished.dismissed = true;
    state.peek = false;
    render();
  };
  // busy while events have come that the view does not include yet (it is being fetched)
  return h('section', { class: 'board', 'aria-label': t('board.label'), 'aria-busy': state.since.length > 0 ? 'true' : null },
    order.map((seat, k) => seatBox(view, deal, seat, PLACES[k], won[seat])),
    h('div', {
      class: `trick${finished ? ' finished' : ''}`, id: 'trick', 'aria-label': caption,
      'data-finished': finished ? number : null, 'data-winner': finished ? finished.winner : null,
    },
    h('p', { class: 'caption' }, caption),
    order.map((seat, k) => {
      const played = playedBy(seat);
      const winner = finished && finished.winner === seat;
      return played
        ? card(played, seat, deal.deal_no, {
          class: `card ${PLACES[k]}${winner ? ' winner' : ''}`, 'data-place': PLACES[k], 'data-won': winner ? 'true' : null,
        })
        : null;
    }),
    h('p', { class: 'trick-buttons' },
      finished && (state.peek || !state.finished.pausing)
        ? button('dismiss-trick', t(state.peek ? 'trick.back' : 'trick.go_on'), dismiss)
        : null,
      !finished && deal.tricks.length
        ? button('last-trick', t('trick.last'), () => {
          state.peek = true;
          render();
        })
        : null)));
}

/** A seat at the table: its name, whose turn it is with the clock, and what is known of it
 * (dealer, declaration, party, announcements) as badges. */
function seatBox(view, deal, seat, place, won) {
  const info = view.seats[seat];
  const party = deal.parties[seat];
  const declaration = deal.declarations[seat];
  const turn = deal.turn === seat && deal.phase !== 'scored';
  const absent = info.status === 'vacant' || info.status === 'away';
  const words = deal.announcements.filter((a) => a.seat === seat).flatMap((a) => a.words);
  const badge = (text, kind) => h('span', { class: `badge ${kind}` }, text);
  return h('div', { class: `seat ${place}${turn ? ' turn' : ''}`, 'data-seat-box': seat, 'data-status': info.status },
    h('p', { class: 'name' }, seatName(view.seats, seat), info.bot ? h('small', { class: 'kind' }, ` · ${term('bot', info.bot)}`) : null,
      seat === state.mine.seat && seated() ? h('small', {}, ` ${t('seats.you')}`) : null),
    absent ? h('p', { class: `seat-status ${info.status}` }, t(info.status === 'away' ? 'seat.away' : 'seat.vacant')) : null,
    h('p', { class: 'badges' },
      deal.dealer === seat ? badge(t('seat.dealer'), 'dealer') : null,
      declaration && deal.phase !== 'play' ? badge(term('declaration', declaration), 'declaration') : null,
      party ? badge(term('party', party), `party ${party}`) : null,
      words.map((word) => badge(term('word', word), 'said')),
      h('span', { class: 'count' }, t('seat.cards', { count: deal.hand_sizes[seat] }), ' · ', t('seat.tricks', { count: won }))),
    turn ? h('p', { class: 'to-play' }, t('seat.to_play'), view.clock?.seat === seat ? [' · ', timer(view, view.clock)] : null) : null);
}

function group(title, buttons) {
  return h('div', { class: 'group', role: 'group', 'aria-label': title }, h('p', {}, title), buttons);
}

function button(key, label, onclick, ariaLabel) {
  return h('button', { type: 'button', 'data-key': key, onclick, 'aria-label': ariaLabel }, label);
}

function actions(view, deal) {
  const options = deal.options;
  const cardsHeld = deal.hand.length;
  const groups = [];
  const me = view.seats[state.mine.seat];
  if (me.status === 'away') {
    groups.push(h('div', { class: 'group away' },
      h('p', {}, t('move.away'), ' ', rule('T3.3', state.rules, false)),
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
  if (options.announcements.length) {
    groups.push(group(t('move.announce', { count: cardsHeld }), options.announcements.map((a) => button(
      `announce-${a.word}`, [term('word', a.word), h('small', {}, ` ${t('move.until', { count: a.until_cards })}`)],
      () => act((seat) => call('POST', '/tables/{table_id}/seats/{seat}/announce', { ...seat, body: { word: a.word } })),
      t('move.announce_label', { word: term('word', a.word), count: a.until_cards })))));
  }
  const waiting = deal.phase !== 'scored' && given(deal.turn) && deal.turn !== state.mine.seat;
  const mine = view.clock?.seat === state.mine.seat ? view.clock : null;
  return h('section', { class: 'actions', id: 'actions', 'aria-label': t('move.label') },
    mine ? h('p', { class: 'your-clock' }, t('move.clock'), ' ', timer(view, mine), ' ', t('move.clock_then'), ' ',
      rule('T3.2', state.rules, false)) : null,
    groups,
    options.cards.length ? h('p', {}, t('move.play')) : null,
    !groups.length && !options.cards.length
      ? h('p', {}, waiting ? t('move.waiting', { who: seatName(view.seats, deal.turn) }) : t('move.nothing'))
      : null);
}

function hand(deal) {
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

function trickLine(view, trick, dealNo, label) {
  return h('div', { class: 'last-trick', 'data-winner': trick.winner },
    h('p', {}, t('trick.line', { label, leader: seatName(view.seats, trick.leader), winner: seatName(view.seats, trick.winner) })),
    h('p', { class: 'cards' }, trick.cards.map((c, i) => card(c, (trick.leader + i) % 4, dealNo))));
}

function tricks(view, deal) {
  return h('section', { class: 'panel', id: 'tricks', 'aria-labelledby': 'tricks-h' },
    h('h2', { id: 'tricks-h' }, t('menu.announcements')),
    deal.announcements.length ? null : h('p', {}, t('announcements.none')),
    h('ul', { class: 'announcements', 'aria-label': t('menu.announcements') }, deal.announcements.map((a) => h('li', {},
      t(a.late_reply ? 'announcements.late' : 'announcements.line', {
        who: seatName(view.seats, a.seat), words: said(a.words), party: term('party', a.party), count: a.cards,
      })))));
}

const resultDialog = h('dialog', { id: 'result', 'aria-labelledby': 'result-h' });
const standingsDialog = h('dialog', { id: 'standings', 'aria-labelledby': 'standings-h' });

/** The end of the session (R1.3): the final standings from the scoresheet, highest total
 * first, with its winners, a link to the scoresheet and the export; shown once the session
 * is finished (after the last deal's result is closed), until "Close". */
function showStandings(view) {
  const sheet = state.sheet;
  const shown = view.status === 'finished' && sheet?.winners && !state.standingsClosed && !resultDialog.open;
  if (!shown) {
    if (standingsDialog.open) standingsDialog.close();
    return;
  }
  const order = view.seats.map((s) => s.seat).sort((a, b) => sheet.totals[b] - sheet.totals[a]);
  const close = () => {
    state.standingsClosed = true;
    render();
  };
  fill(standingsDialog,
    h('h2', { id: 'standings-h' }, t('standings.title')),
    h('p', { class: 'winners' }, t('sheet.winners', { winners: sheet.winners.map((s) => seatName(view.seats, s)).join(t('list.and')) }),
      ' ', rule('R1.3', state.rules, false)),
    h('table', { class: 'totals' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('result.player')), h('th', { scope: 'col' }, t('result.total')))),
      h('tbody', {}, order.map((seat) => h('tr', { 'data-standing-seat': seat, 'data-total': sheet.totals[seat] },
        h('th', { scope: 'row' }, seatName(view.seats, seat)), h('td', {}, signed(sheet.totals[seat])))))),
    h('p', { class: 'dialog-buttons' },
      h('a', { href: '#sheet', onclick: close }, t('menu.sheet')),
      h('button', { type: 'button', 'data-key': 'standings-export', onclick: exportSession }, t('export.download')),
      button('standings-close', t('standings.close'), close)));
  if (!standingsDialog.open) standingsDialog.showModal();
}

/** The end of a deal (R8-R10): who won, the value and its lines, every seat's entry and the
 * running totals, the deal's last trick; "Next" closes it. Shown once per deal scored while
 * this page is open (its deal_scored event). */
function showResult(view) {
  const scored = state.result;
  if (!scored || state.resultClosed === scored.deal_no) {
    if (resultDialog.open) resultDialog.close();
    return;
  }
  const score = scored.score;
  const row = state.sheet?.rows.find((r) => r.deal_no === scored.deal_no);
  const record = state.record?.deal_no === scored.deal_no ? state.record : null;
  resultDialog.dataset.deal = scored.deal_no;
  resultDialog.dataset.value = score.value;
  fill(resultDialog,
    h('h2', { id: 'result-h' }, score.winner
      ? t('result.won', { deal: scored.deal_no, party: term('party', score.winner) })
      : t('result.no_winner', { deal: scored.deal_no })),
    h('p', { class: 'value' }, t('result.value', { value: signed(score.value) })),
    h('p', {}, t('result.points', { game: term('game', score.game_type), re: score.card_points.re ?? 0, kontra: score.card_points.kontra ?? 0 })),
    scoreLines(score.lines, state.rules),
    h('table', { class: 'totals' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('result.player')), h('th', { scope: 'col' }, t('result.this_deal')),
        h('th', { scope: 'col' }, t('result.total')))),
      h('tbody', {}, score.entries.map((entry, seat) => h('tr', { 'data-entry-seat': seat, 'data-entry': entry },
        h('th', { scope: 'row' }, seatName(view.seats, seat)), h('td', {}, signed(entry)),
        h('td', { 'data-total': row?.totals[seat] }, row ? signed(row.totals[seat]) : '…'))))),
    record ? trickLine(view, record.tricks.at(-1), record.deal_no, t('trick.last')) : null,
    h('p', { class: 'dialog-buttons' },
      h('a', { href: `/t/${encodeURIComponent(table)}/deals/${scored.deal_no}` }, t('result.step', { deal: scored.deal_no })), ' ',
      button('next', t('result.next'), () => {
        state.resultClosed = scored.deal_no;
        render();
      })));
  if (!resultDialog.open) resultDialog.showModal();
}

/** A scoresheet cell: the seat's entry, its running total, and who played the seat in that
 * deal when that is not (only) who sits there now (T2.2). */
function sheetCell(view, row, seat) {
  const by = row.players?.[seat] ?? [];
  const other = by.length > 1 || (by.length === 1 && by[0] !== view.seats[seat].name);
  return h('td', { 'data-entry': row.entries[seat], 'data-total': row.totals[seat], 'data-players': JSON.stringify(by) },
    `${signed(row.entries[seat])} `, h('small', {}, `(${signed(row.totals[seat])})`),
    other ? h('small', { class: 'by' }, t('sheet.played_by', { players: by.join(t('sheet.then')) })) : null);
}

function sheetSection(view) {
  const sheet = state.sheet;
  if (!sheet || !sheet.rows.length) return null;
  const names = view.seats.map((s) => seatName(view.seats, s.seat));
  return h('section', { class: 'panel', id: 'sheet', 'aria-labelledby': 'sheet-h' },
    h('h2', { id: 'sheet-h' }, t('menu.sheet')),
    h('div', { class: 'scroll' }, h('table', {},
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('sheet.deal')), names.map((n) => h('th', { scope: 'col' }, n)))),
      h('tbody', {}, sheet.rows.map((row) => h('tr', { 'data-deal': row.deal_no },
        h('th', { scope: 'row' }, h('a', { href: `/t/${encodeURIComponent(table)}/deals/${row.deal_no}` }, `${row.deal_no}`)),
        row.entries.map((_, seat) => sheetCell(view, row, seat))))),
      h('tfoot', {}, h('tr', {}, h('th', { scope: 'row' }, t('result.total')), sheet.totals.map((n) => h('td', { class: 'total' }, signed(n))))))),
    sheet.winners ? h('p', { class: 'winners' }, t('sheet.winners', { winners: sheet.winners.map((s) => names[s]).join(t('list.and')) }), ' ',
      rule('R1.3', state.rules, false)) : null,
    sheet.abandoned ? h('p', {}, t('sheet.abandoned', { count: sheet.rows.length }), ' ', rule('T4.2', state.rules, false)) : null);
}

function logSection(view) {
  return h('details', {
    class: 'panel', id: 'log', open: state.logOpen,
    ontoggle: (e) => { state.logOpen = e.target.open; },
  },
  h('summary', {}, t('log.title', { count: state.log.length })),
  h('ol', { 'data-from': state.from }, state.log.map((event) => h('li', { 'data-id': event.id, 'data-type': event.type },
    describe(event, view.seats, event.deal)))));
}

function render() {
  const view = state.view;
  if (!view) return;
  const deal = view.deal;
  document.title = `${view.name || t('table.unnamed')} · doko`;
  document.body.dataset.version = String(state.latest);
  document.body.dataset.problems = String(state.problems);
  document.body.dataset.seated = String(seated());
  const more = [deal ? seating(view) : null, hosting(view), device(), deal ? tricks(view, deal) : null,
    sheetSection(view), logSection(view)].filter(Boolean);
  fill(content,
    heading(view, more.map((part) => part.id)),
    state.problem ? problemBox(state.problem, state.rules, () => {
      state.problem = null;
      render();
    }) : null,
    deal ? null : seating(view),
    deal ? h('div', { class: 'play' }, board(view, deal), seated() ? actions(view, deal) : null,
      seated() ? hand(deal) : null) : null,
    h('div', { class: 'more' }, more));
  showResult(view);
  showStandings(view);
  const yourTurn = seated() && deal && (deal.options.cards.length || deal.options.declarations.length || deal.options.contracts.length);
  const text = [...state.spoken, yourTurn ? t('live.your_turn') : ''].filter(Boolean).join('. ');
  if (live.textContent !== text) live.textContent = text;
  if (document.activeElement === document.body && state.handFocused) document.getElementById('hand')?.focus();
}

document.addEventListener('focusin', (e) => {
  state.handFocused = Boolean(/** @type {Element} */ (e.target).closest?.('#hand'));
});

/** The running turn's time left, counted down between views. */
setInterval(() => {
  for (const element of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[data-deadline]'))) {
    const left = timeLeft(element.dataset.deadline);
    if (element.textContent !== left) element.textContent = left;
  }
}, 250);

/** The page of a table this tab may not see: the problem, and, for what may be a private
 * table (which answers 404 to whoever holds none of its credentials, as an unknown table
 * does, T1.1), a field for its invitation link. */
function door(error) {
  const problem = problemOf(error);
  // a private table answers a caller without its credentials 401 (or 404): ask for the link
  const closed = (problem.status === 401 || problem.status === 404) && !seated();
  fill(content, h('h1', {}, t('table.unnamed')), problemBox(problem, state.rules),
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
    h('p', {}, h('a', { href: '/' }, t('door.lobby'))));
}

async function start() {
  const main = document.getElementById('main');
  main.replaceChildren(content, live, resultDialog, standingsDialog);
  try {
    const [known] = await Promise.all([meta(), loadLanguage()]);
    state.rules = ruleTexts(known.rules);
    state.types = known.events;
    if (seated() && !given(state.mine.seat)) { // a rejoin link brought the token alone
      const seat = await seatOf(table, state.mine.token);
      hold(table, given(seat) ? { seat } : { seat: null, token: null });
      state.mine = held(table);
    }
    try {
      const answer = await fetchView();
      accept(answer.version, answer.data);
    } catch (error) {
      if (!seatGone(error)) throw error;
      forgetSeat(); // a token this table does not know (any more): watch instead
      const answer = await fetchView();
      accept(answer.version, answer.data);
    }
  } catch (error) {
    door(error);
    return;
  }
  connect();
  loadSheet();
}

start();
