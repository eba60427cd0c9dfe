// The table page: a seat's page when this tab holds that seat's token, else a spectator's.
// State = the last view the server sent + the stream's events since; everything drawn
// comes from that state. What may be played or said now is the view's `options`: the page
// decides no rule, and the server referees every click.
import { call, follow, held, hold, meta, schema } from './api.js';
import {
  card, cardButton, describe, fill, given, h, plain, problemBox, problemOf, scoreLines, seatName, signed, words,
} from './ui.js';

const table = decodeURIComponent(location.pathname.split('/')[2]);
const content = h('div', { class: 'table-page' });
const live = h('p', { id: 'live', class: 'live', 'aria-live': 'polite' });

const state = {
  mine: held(table), // {seat, token, host} held by this tab
  view: null, // the last view
  version: 0, // its table version
  latest: 0, // the newest version known, from the view or an event
  since: [], // the events after the view
  log: [], // every event received on this page, with the deal it belongs to
  deal: null, // the deal the next events belong to
  sheet: null, // the scoresheet
  result: null, // the last deal scored (a deal_scored event)
  record: null, // that deal's record, for its last trick
  problem: null,
  problems: 0, // how many refusals this page has shown
  from: null, // the version the page's stream started after
  connection: 'connecting',
  opened: 0,
  spoken: [],
  logOpen: false,
  sending: false,
  sitName: '',
  botKind: null,
  rules: {},
  types: [],
};

const base = `/tables/${encodeURIComponent(table)}`;
const seated = () => state.mine.token !== undefined;
const GAME_EVENTS = new Set([
  'deal_dealt', 'game_type_fixed', 'card_played', 'trick_won', 'marriage_clarified', 'announced',
  'deal_scored', 'session_finished',
]);
const SHEET_EVENTS = new Set(['seat_taken', 'session_started', 'deal_scored', 'session_finished']);

// --- talking to the service ------------------------------------------------------------

/** The view as this tab may see it: the seat's own, or the public one. */
function fetchView() {
  const options = {
    params: { min_version: state.latest || undefined },
    version: state.view ? state.version : undefined,
  };
  if (seated()) return call('GET', `${base}/seats/${state.mine.seat}`, { ...options, token: state.mine.token });
  return call('GET', base, options);
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

let refreshing = false;
let again = false;
/** Fetch the view again (one request at a time; once more if events came meanwhile). */
async function refresh() {
  if (refreshing) {
    again = true;
    return;
  }
  refreshing = true;
  await showingProblems(async () => {
    do {
      again = false;
      const answer = await fetchView();
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
  state.sheet = (await call('GET', `${base}/scoresheet`, { params: { min_version: state.latest || undefined } })).data;
  render();
});

/** A scored deal's record (public once scored, R4.3): its last trick is shown after it. */
const loadRecord = (dealNo) => showingProblems(async () => {
  state.record = (await call('GET', `${base}/deals/${dealNo}`)).data;
  render();
});

/** Send a command for this tab's seat; the answer is the seat's new view. A refusal is
 * shown with its rule, and the view is fetched again: the server decides what is possible. */
async function act(what, body) {
  if (state.sending) return;
  state.sending = true;
  try {
    const answer = await call('POST', `${base}/seats/${state.mine.seat}/${what}`, { token: state.mine.token, body });
    state.problem = null;
    accept(answer.data.version, answer.data.view);
  } catch (error) {
    state.problem = problemOf(error);
    state.problems += 1;
    render();
    refresh();
  } finally {
    state.sending = false;
  }
}

const sit = (seat) => showingProblems(async () => {
  const taken = (await call('POST', `${base}/seats`, { body: { name: state.sitName.trim(), seat } })).data;
  hold(table, { seat: taken.seat, token: taken.token });
  state.mine = held(table);
  state.problem = null;
  accept(taken.version, taken.view);
  connect();
});

const seatBots = (free) => showingProblems(async () => {
  for (const seat of free) {
    await call('POST', `${base}/bots`, { token: state.mine.host, body: { kind: state.botKind, seat: seat.seat } });
  }
  state.problem = null;
  await refresh();
});

let stream = null;
/** Follow the table's events as this tab may see them, from the newest version known. */
function connect() {
  stream?.close();
  state.opened = 0;
  state.from ??= state.latest;
  stream = follow(`${base}/events`, {
    token: state.mine.token,
    after: state.latest,
    types: state.types,
    onEvent: received,
    onStatus: (now) => {
      state.connection = now;
      // Back after a lost connection: the stream resumes by itself, the view is fetched anew.
      if (now === 'live' && state.opened++ > 0) refresh();
      showConnection();
    },
  });
}

function received(event) {
  if (event.type === 'deal_dealt') state.deal = event.data.deal_no;
  state.log.push({ ...event, deal: state.deal });
  state.latest = Math.max(state.latest, event.id);
  if (event.id > state.version) state.since.push(event);
  if (event.type === 'deal_scored') {
    state.result = event.data;
    loadRecord(event.data.deal_no);
  }
  if (GAME_EVENTS.has(event.type)) {
    state.spoken = [...state.spoken, plain(describe(event, state.view?.seats, state.deal))].slice(-3);
  }
  if (SHEET_EVENTS.has(event.type)) loadSheet();
  render();
  refresh();
}

// --- drawing -------------------------------------------------------------------------------

function showConnection() {
  const text = { live: 'live', connecting: 'connecting…', reconnecting: 'connection lost: reconnecting…', lost: 'connection lost: reconnecting…' };
  const status = document.getElementById('status');
  status.textContent = text[state.connection];
  status.dataset.connection = state.connection;
}

function phaseText(view, deal) {
  if (deal.phase === 'play' || deal.phase === 'scored') {
    const game = words(deal.game_type ?? 'normal');
    const by = given(deal.declarer) ? ` by ${seatName(view.seats, deal.declarer)}` : '';
    return deal.phase === 'scored' ? `${game}${by}, scored` : `${game}${by}`;
  }
  return deal.phase;
}

function heading(view) {
  const deal = view.deal;
  return h('header', { class: 'table-head' },
    h('h1', {}, view.name || 'Table'),
    h('p', {},
      seated() ? `You play ${seatName(view.seats, state.mine.seat)} (seat ${state.mine.seat})` : 'You are watching',
      deal ? ` · deal ${deal.deal_no} of ${view.deals} · ${seatName(view.seats, deal.dealer)} dealt · ${phaseText(view, deal)}` : '',
      view.winners ? ' · the session is over' : ''),
    h('p', { class: 'small' }, 'Link to this table: ', h('a', { href: location.pathname }, location.href)));
}

function seating(view) {
  const free = view.seats.filter((s) => !given(s.name));
  if (!free.length) return null;
  const sitting = !seated() && h('form', {
    class: 'sit',
    onsubmit: (e) => {
      e.preventDefault();
      sit(Number(e.submitter.value));
    },
  },
  h('label', { for: 'sit-name' }, 'Your name'),
  h('input', {
    id: 'sit-name', 'data-key': 'sit-name', required: true, maxlength: 40, autocomplete: 'nickname', value: state.sitName,
    oninput: (e) => { state.sitName = e.target.value; },
  }),
  free.map((s) => h('button', { type: 'submit', value: s.seat, 'data-key': `sit-${s.seat}` }, `Sit at seat ${s.seat}`)));
  const bots = state.mine.host && h('form', {
    class: 'bots',
    onsubmit: (e) => {
      e.preventDefault();
      seatBots(free);
    },
  },
  h('label', { for: 'bot-kind' }, 'Bot'),
  h('select', { id: 'bot-kind', 'data-key': 'bot-kind', onchange: (e) => { state.botKind = e.target.value; } },
    botKinds().map((kind) => h('option', { value: kind, selected: kind === state.botKind }, kind))),
  h('button', { type: 'submit', 'data-key': 'bots' }, `Seat bots on the ${free.length} free seats`));
  return h('section', { class: 'panel', 'aria-labelledby': 'seating-h' },
    h('h2', { id: 'seating-h' }, 'Seats'),
    h('p', {}, 'The session starts when four players sit. Share the link to this table to invite people.'),
    h('ul', {}, view.seats.map((s) => h('li', {}, `Seat ${s.seat}: `, s.name ? `${s.name}${s.bot ? ` (${s.bot} bot)` : ''}` : 'free'))),
    sitting || null,
    bots || null);
}

let kinds = null;
/** The bot kinds the API offers (its schema's BotKind), once the schema is here. */
function botKinds() {
  if (kinds === null) {
    kinds = [];
    schema().then((spec) => {
      kinds = spec.components.schemas.BotKind.enum;
      state.botKind ??= kinds[0];
      render();
    }, (error) => {
      state.problem = problemOf(error);
      render();
    });
  }
  return kinds;
}

const PLACES = ['bottom', 'left', 'top', 'right']; // this seat, its left (next clockwise), across, its right

function board(view, deal) {
  const me = seated() ? state.mine.seat : 0;
  const won = [0, 0, 0, 0];
  const points = [0, 0, 0, 0];
  for (const trick of deal.tricks) {
    won[trick.winner] += 1;
    points[trick.winner] += trick.points;
  }
  const order = [0, 1, 2, 3].map((k) => (me + k) % 4);
  const leader = deal.trick_leader;
  const playedBy = (seat) => (given(leader) ? deal.trick[(seat - leader + 4) % 4] : undefined);
  const caption = given(leader)
    ? `Trick ${deal.tricks.length + 1}: ${seatName(view.seats, leader)} leads`
    : 'No trick yet';
  // busy while events have come that the view does not include yet (it is being fetched)
  return h('section', { class: 'board', 'aria-label': 'the table', 'aria-busy': state.since.length > 0 ? 'true' : null },
    order.map((seat, k) => seatBox(view, deal, seat, PLACES[k], won[seat], points[seat])),
    h('div', { class: 'trick', id: 'trick', 'aria-label': caption },
      h('p', { class: 'caption' }, caption),
      order.map((seat, k) => {
        const played = playedBy(seat);
        return played
          ? card(played, seat, deal.deal_no, { class: `card ${PLACES[k]}`, 'data-place': PLACES[k] })
          : null;
      })));
}

function seatBox(view, deal, seat, place, won, points) {
  const info = view.seats[seat];
  const party = deal.parties[seat];
  const declaration = deal.declarations[seat];
  const turn = deal.turn === seat && deal.phase !== 'scored';
  return h('div', { class: `seat ${place}${turn ? ' turn' : ''}`, 'data-seat-box': seat },
    h('p', { class: 'name' }, seatName(view.seats, seat), info.bot ? h('small', {}, ` · ${info.bot} bot`) : null,
      seat === state.mine.seat && seated() ? h('small', {}, ' (you)') : null),
    h('p', { class: 'facts' },
      `${deal.hand_sizes[seat]} cards · ${won} tricks · ${points} points`,
      deal.dealer === seat ? ' · dealer' : '',
      declaration ? ` · ${declaration}` : '',
      party ? [' · ', h('strong', { class: `party ${party}` }, party)] : ''),
    turn ? h('p', { class: 'to-play' }, 'to play') : null);
}

function group(title, buttons) {
  return h('div', { class: 'group', role: 'group', 'aria-label': title }, h('p', {}, title), buttons);
}

function button(key, label, onclick, ariaLabel) {
  return h('button', { type: 'button', 'data-key': key, onclick, 'aria-label': ariaLabel }, label);
}

function actions(deal) {
  const options = deal.options;
  const cardsHeld = deal.hand.length;
  const groups = [];
  if (options.declarations.length) {
    groups.push(group('Healthy or reservation? (R4.1)', options.declarations.map((d) => button(
      `declare-${d}`, d, () => act('reservation', { declaration: d })))));
  }
  if (options.contracts.length) {
    groups.push(group('Name your contract (R4.2)', options.contracts.map((c) => button(
      `contract-${c}`, words(c), () => act('contract', { contract: c })))));
  }
  if (options.announcements.length) {
    groups.push(group(`Announce (R6) — you hold ${cardsHeld} cards`, options.announcements.map((a) => button(
      `announce-${a.word}`, [a.word, h('small', {}, ` until ${a.until_cards} cards`)],
      () => act('announce', { word: a.word }),
      `announce ${a.word}, allowed while you hold at least ${a.until_cards} cards`))));
  }
  const waiting = deal.phase !== 'scored' && given(deal.turn) && deal.turn !== state.mine.seat;
  return h('section', { class: 'panel actions', 'aria-labelledby': 'actions-h' },
    h('h2', { id: 'actions-h' }, 'Your move'),
    groups,
    options.cards.length ? h('p', {}, 'Your turn: play a card from your hand.') : null,
    !groups.length && !options.cards.length
      ? h('p', {}, waiting ? `Waiting for ${seatName(state.view.seats, deal.turn)}.` : 'Nothing to do now.')
      : null);
}

function hand(deal) {
  const legal = new Set(deal.options.cards);
  const counted = new Map();
  return h('section', { id: 'hand', class: 'hand', 'aria-labelledby': 'hand-h', tabindex: -1 },
    h('h2', { id: 'hand-h' }, 'Your hand', legal.size ? ': your turn, choose a card' : ''),
    h('div', { class: 'cards' }, deal.hand.map((c) => {
      const n = counted.get(c) ?? 0;
      counted.set(c, n + 1);
      return cardButton(c, state.mine.seat, deal.deal_no, `card-${c}-${n}`, legal.has(c) ? () => act('play', { card: c }) : null);
    })));
}

function trickLine(view, trick, dealNo, label) {
  return h('div', { class: 'last-trick' },
    h('p', {}, `${label}: ${seatName(view.seats, trick.leader)} led, ${seatName(view.seats, trick.winner)} won ${trick.points} points`),
    h('p', { class: 'cards' }, trick.cards.map((c, i) => card(c, (trick.leader + i) % 4, dealNo))));
}

function tricks(view, deal) {
  const last = deal.tricks.at(-1);
  const previous = !last && state.record && state.record.deal_no === deal.deal_no - 1 ? state.record : null;
  return h('section', { class: 'panel', 'aria-labelledby': 'tricks-h' },
    h('h2', { id: 'tricks-h' }, 'Tricks and announcements'),
    last ? trickLine(view, last, deal.deal_no, `Last trick (${deal.tricks.length})`) : null,
    previous ? trickLine(view, previous.tricks.at(-1), previous.deal_no, `Last trick of deal ${previous.deal_no}`) : null,
    !last && !previous ? h('p', {}, 'No trick played yet.') : null,
    h('ul', { class: 'announcements', 'aria-label': 'announcements' }, deal.announcements.map((a) => h('li', {},
      `${seatName(view.seats, a.seat)}: ${a.words.join(' + ')} (${a.party}) with ${a.cards} cards`, a.late_reply ? ', a late reply' : ''))));
}

function resultSection(view) {
  const scored = state.result ?? (view.deal?.phase === 'scored' ? view.deal.score : null);
  if (!scored) return null;
  const score = scored.score;
  return h('section', {
    class: 'panel', id: 'result', 'data-deal': scored.deal_no, 'data-value': score.value, 'aria-labelledby': 'result-h',
  },
    h('h2', { id: 'result-h' }, `Deal ${scored.deal_no}: ${score.winner ? `${score.winner} won` : 'no winner'}, value ${signed(score.value)} for Re`),
    h('p', {}, `${words(score.game_type)}; card points Re ${score.card_points.re ?? 0}, Kontra ${score.card_points.kontra ?? 0}`),
    h('ul', { class: 'entries' }, score.entries.map((entry, seat) => h('li', { 'data-entry-seat': seat, 'data-entry': entry },
      `${seatName(view.seats, seat)} ${signed(entry)}`))),
    scoreLines(score.lines, state.rules),
    h('p', {}, h('a', { href: `/t/${encodeURIComponent(table)}/deals/${scored.deal_no}` }, `Step through deal ${scored.deal_no}`)));
}

function sheetSection(view) {
  const sheet = state.sheet;
  if (!sheet || !sheet.rows.length) return null;
  const names = view.seats.map((s) => seatName(view.seats, s.seat));
  return h('section', { class: 'panel', id: 'sheet', 'aria-labelledby': 'sheet-h' },
    h('h2', { id: 'sheet-h' }, 'Scoresheet'),
    h('div', { class: 'scroll' }, h('table', {},
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Deal'), names.map((n) => h('th', { scope: 'col' }, n)))),
      h('tbody', {}, sheet.rows.map((row) => h('tr', { 'data-deal': row.deal_no },
        h('th', { scope: 'row' }, h('a', { href: `/t/${encodeURIComponent(table)}/deals/${row.deal_no}` }, `${row.deal_no}`)),
        row.entries.map((entry, seat) => h('td', { 'data-entry': entry, 'data-total': row.totals[seat] }, `${signed(entry)} `, h('small', {}, `(${signed(row.totals[seat])})`)))))),
      h('tfoot', {}, h('tr', {}, h('th', { scope: 'row' }, 'Total'), sheet.totals.map((t) => h('td', { class: 'total' }, signed(t))))))),
    sheet.winners ? h('p', { class: 'winners' }, `Winners: ${sheet.winners.map((s) => names[s]).join(' and ')} (R1.3)`) : null);
}

function logSection(view) {
  return h('details', {
    class: 'panel', id: 'log', open: state.logOpen,
    ontoggle: (e) => { state.logOpen = e.target.open; },
  },
  h('summary', {}, `Table log (${state.log.length} events)`),
  h('ol', { 'data-from': state.from }, state.log.map((event) => h('li', { 'data-id': event.id, 'data-type': event.type },
    describe(event, view.seats, event.deal)))));
}

function render() {
  const view = state.view;
  if (!view) return;
  const deal = view.deal;
  document.title = `${view.name || 'table'} · doko`;
  document.body.dataset.version = String(state.latest);
  document.body.dataset.problems = String(state.problems);
  fill(content,
    heading(view),
    state.problem ? problemBox(state.problem, state.rules, () => {
      state.problem = null;
      render();
    }) : null,
    seating(view),
    deal ? h('div', { class: 'play' }, board(view, deal), seated() ? actions(deal) : null) : null,
    deal && seated() ? hand(deal) : null,
    deal ? tricks(view, deal) : null,
    resultSection(view),
    sheetSection(view),
    logSection(view));
  const yourTurn = seated() && deal && (deal.options.cards.length || deal.options.declarations.length || deal.options.contracts.length);
  const text = [...state.spoken, yourTurn ? 'Your turn' : ''].filter(Boolean).join('. ');
  if (live.textContent !== text) live.textContent = text;
  if (document.activeElement === document.body && state.handFocused) document.getElementById('hand')?.focus();
}

document.addEventListener('focusin', (e) => {
  state.handFocused = Boolean(e.target.closest?.('#hand'));
});

async function start() {
  const main = document.getElementById('main');
  main.replaceChildren(content, live);
  try {
    const known = await meta();
    state.rules = known.rules;
    state.types = known.events;
    try {
      const answer = await fetchView();
      accept(answer.version, answer.data);
    } catch (error) {
      if (!seated() || (error.status !== 401 && error.status !== 403)) throw error;
      hold(table, { seat: null, token: null }); // a token this table does not know: watch instead
      state.mine = held(table);
      const answer = await fetchView();
      accept(answer.version, answer.data);
    }
  } catch (error) {
    fill(content, h('h1', {}, 'Table'), problemBox(problemOf(error), state.rules), h('p', {}, h('a', { href: '/' }, 'Back to the lobby')));
    return;
  }
  connect();
  loadSheet();
}

start();
