// A tournament's page, the one link a player keeps all evening: who holds the tournament's
// host token gets the director's part (the registration link to share, players registered
// by hand, the rounds and their tables' progress, starting the next round, the tables); who
// holds a player's tournament credential gets "your table now" (getPlayerTable: a button to
// the seat, which the credential opens, E5.2); anyone may register while registration is
// open (at a private tournament with the invitation code of the link's fragment, E2.1); and
// everyone allowed to see the tournament gets the standings (E6) and the deals to compare.
// State = the last answers (getTournament, getPlayerTable, getStandings) and the
// tournament's stream (streamTournament), which says when to ask again and brings the
// standings as they change. Whether a round may start is the view's status and the
// service's answer: the page decides no rule.
import { call, commands, followTournament, meta, problemOf, schema } from './api.js';
import {
  comparisons, forgetTournament, heldTournament, holdTournament, standingsPanel, takeFragment, toTable, tournamentLink, tournamentPass,
} from './tournament_parts.js';
import { loadLanguage, ruleTexts, t, term } from './i18n.js';
import { fill, given, h, problemBox, rule, steady } from './ui.js';

const tournament = decodeURIComponent(location.pathname.split('/')[2]);
const at = { path: { tournament_id: tournament } };
takeFragment(tournament);
const content = h('div', { class: 'tournament-page' });
const live = h('p', { id: 'live', class: 'live', 'aria-live': 'polite' });
const state = {
  mine: heldTournament(tournament),
  answer: null, // the tournament (getTournament): {tournament_id, version, tournament, tables: the running round's progress}
  where: null, // the player's table now (getPlayerTable: table_open once its seats answer)
  standings: null,
  problem: null,
  rules: {},
  types: [], // the tournament stream's message types (the document's)
  connection: 'connecting',
  registered: [], // the players the director registered on this page: {name, link}
  typed: { name: '', who: '' }, // the names being typed (a redraw keeps them)
  confirming: null, // the director's command waiting for a "yes": 'start', or 'abandon-<table>'
  copied: '',
};

const pass = () => tournamentPass(state.mine);
const director = () => Boolean(state.mine.host);
const player = () => Boolean(state.mine.token);

// --- talking to the service ------------------------------------------------------------

/** Send a command (api.js `commands`: one at a time); a refusal is shown with its rule. */
const command = commands((problem) => {
  state.problem = problem;
  render();
});

let refreshing = false;
let again = false;
/** Ask for the tournament (and the player's table, and the standings when no stream brings
 * them) again: one request at a time, once more if the stream brought news meanwhile. */
async function refresh({ standings = false } = {}) {
  if (refreshing) {
    again = true;
    return;
  }
  refreshing = true;
  try {
    do {
      again = false;
      const [answer, where, ranked] = await Promise.all([
        call('GET', '/tournaments/{tournament_id}', { params: at, token: pass() }),
        player() ? call('GET', '/tournaments/{tournament_id}/table', { params: at, token: state.mine.token }) : null,
        standings ? call('GET', '/tournaments/{tournament_id}/standings', { params: at, token: pass() }) : null,
      ]);
      state.answer = answer.data;
      state.where = where?.data ?? null;
      if (ranked) state.standings = ranked.data;
      if (state.where) holdTournament(tournament, { player: state.where.player, name: state.where.name });
      state.mine = heldTournament(tournament);
    } while (again);
  } catch (error) {
    state.problem = problemOf(error);
  } finally {
    refreshing = false;
  }
  render();
}

/** Register under a name (E2.1), with the invitation code a private tournament's link brought;
 * the tournament credential the answer shows once is kept on this device. */
const register = (name) => command(async () => {
  const answer = (await call('POST', '/tournaments/{tournament_id}/players', {
    params: at, body: { name, invitation: state.mine.invitation },
  })).data;
  holdTournament(tournament, { token: answer.token, player: answer.player, name: answer.name });
  state.mine = heldTournament(tournament);
  await refresh();
});

/** The director registers a player by hand (E2.1): their personal link, shown once on this
 * page, carries their tournament credential. */
const registerFor = (name) => command(async () => {
  const answer = (await call('POST', '/tournaments/{tournament_id}/players', { params: at, token: state.mine.host, body: { name } })).data;
  state.registered = [...state.registered, { name: answer.name, link: tournamentLink(tournament, { player: answer.token }) }];
  await refresh();
});

/** The director starts round `round` (E4.1): the answer is the tournament after it. */
const startRound = (round) => command(async () => {
  state.confirming = null;
  state.answer = (await call('POST', '/tournaments/{tournament_id}/rounds', { params: at, token: state.mine.host, body: { round_no: round } })).data.tournament;
  await refresh();
});

/** Follow the tournament's stream from its start (a private tournament's with its
 * credential, through stream tickets): its messages say when to ask for the tournament
 * again (registrations, rounds, tables opened, their progress and ends), and bring the
 * standings. A player's table is offered once its seats answer (`table_open`), which the
 * stream's `table_opened` tells. */
function connect() {
  followTournament(tournament, {
    secret: state.answer.tournament.visibility === 'private' ? pass() : undefined,
    after: 0,
    types: state.types,
    onEvent: received,
    onStatus: (now) => {
      state.connection = now;
      showConnection();
    },
  });
}

function received(message) {
  if (message.type === 'standings') {
    state.standings = message.data.standings;
    render();
    return;
  }
  if (message.type === 'table_progress') { // as the table scores it; its head once it is public (E5.3)
    live.textContent = t('live.scored', { round: message.data.round_no, table: message.data.table_no, deal: message.data.deals });
  }
  refresh();
}

// --- drawing -------------------------------------------------------------------------------

function showConnection() {
  const status = document.getElementById('status');
  status.textContent = t(`connection.${state.connection === 'reconnecting' ? 'lost' : state.connection}`);
  status.dataset.connection = state.connection;
}

/** A name field whose text a redraw keeps (the stream may bring news while one types). */
function typing(id, extra) {
  return h('input', {
    id, name: id, 'data-key': id, value: state.typed[id], oninput: (e) => { state.typed[id] = e.target.value; }, ...extra,
  });
}

function button(key, label, onclick, extra = {}) {
  return h('button', { type: 'button', 'data-key': key, onclick, ...extra }, label);
}

async function copy(text, id) {
  try {
    await navigator.clipboard.writeText(text);
    state.copied = id;
  } catch {
    /** @type {HTMLInputElement | null} */ (document.getElementById(id))?.select();
  }
  render();
}

/** A link to hand out: read-only, with a copy button. */
function linkField(id, label, link) {
  return [
    h('p', {}, h('label', { for: id }, label),
      h('input', { id, 'data-key': id, class: 'link', readonly: true, value: link, size: 40 })),
    h('p', {}, button(`copy-${id}`, t('invite.copy'), () => copy(link, id)), ' ',
      h('span', { role: 'status' }, state.copied === id ? t('tournaments.copied') : '')),
  ];
}

function heading(view) {
  return h('header', {},
    h('h1', {}, view.name),
    h('p', { class: 'small', id: 'tournament-facts', 'data-status': view.status, 'data-visibility': view.visibility },
      t('tournaments.facts', { visibility: term('visibility', view.visibility), count: view.rounds }), ' · ',
      term('tournament_status', view.status), ' · ',
      given(view.turn_seconds) ? t('facts.clock', { seconds: view.turn_seconds }) : t('facts.no_clock'), ' · ',
      t('standings.method', { method: term('method', view.method) })));
}

/** A player's part: where they play now (E5.2: their credential is their seat's token),
 * and once the tournament is over (E4.3) that it is, not the last round's seat. */
function yourTable(view) {
  if (!player()) return null;
  const where = state.where;
  const name = state.mine.name ?? '';
  let now;
  if (view.status === 'finished') {
    now = h('p', { id: 'over' }, t('you.finished'));
  } else if (where?.table_id && !where.table_open) {
    now = h('p', { id: 'opening' }, t('you.opening', { round: where.round_no, table: where.table_no }));
  } else if (where?.table_id) {
    now = [
      h('p', {}, t('you.table', { round: where.round_no, table: where.table_no, seat: where.seat })),
      h('p', {}, button('to-seat', t('you.go'), () => toTable(where.table_id, { seat: where.seat, token: state.mine.token }))),
    ];
  } else {
    now = h('p', {}, t('you.waiting'));
  }
  return h('section', { class: 'panel', id: 'you', 'aria-labelledby': 'you-h', 'data-player': state.mine.player },
    h('h2', { id: 'you-h' }, t('you.heading', { name })), now,
    h('details', {}, h('summary', {}, t('you.link_about')),
      linkField('player-link', t('you.link'), tournamentLink(tournament, { player: state.mine.token }))));
}

/** Registration while open (E2.2): by name, with a private tournament's invitation (E2.1). */
function registration(view) {
  if (player() || director() || view.status !== 'registering') return null;
  return h('section', { class: 'panel', id: 'register', 'aria-labelledby': 'register-h' },
    h('h2', { id: 'register-h' }, t('register.heading')),
    h('form', {
      onsubmit: (e) => {
        e.preventDefault();
        register(e.target.elements.name.value.trim());
      },
    },
    h('p', {}, h('label', { for: 'name' }, t('seats.your_name')),
      typing('name', { required: true, maxlength: 40, autocomplete: 'nickname' })),
    h('p', {}, h('button', { type: 'submit', 'data-key': 'register' }, t('register.button')))),
    h('p', { class: 'small' }, t('register.about'), ' ', rule('E2.1', state.rules, false)));
}

/** Whether the director may start a round now, read off the tournament's status (E4.1, E4.3):
 * {round} or {reason, rule}. The service decides: a refusal is shown with its rule. */
function nextRound(view) {
  if (view.status === 'finished') return { reason: 'director.over', rule: 'E4.3' };
  if (view.status === 'playing') return { reason: 'director.running', rule: 'E4.1' };
  if (!view.players.length) return { reason: 'director.no_players', rule: 'E4.1' };
  return { round: view.played.length + 1 };
}

function startButton(view) {
  const next = nextRound(view);
  const label = t('director.start', { round: next.round ?? view.played.length + 1 });
  if (!next.round) {
    return h('p', { id: 'start' }, button('start', label, null, { disabled: true, 'aria-describedby': 'start-why' }), ' ',
      h('span', { id: 'start-why', 'data-reason': next.reason }, t(next.reason), ' ', rule(next.rule, state.rules, false)));
  }
  return h('p', { id: 'start' }, confirmable('start', label, t('director.sure', { round: next.round }), t('director.yes'), () => startRound(next.round)),
    ' ', next.round === 1 && state.confirming !== 'start' ? h('small', {}, t('director.closes'), ' ', rule('E2.2', state.rules, false)) : null);
}

/** A command of the director's that waits for a "yes" first (it cannot be taken back). */
function confirmable(key, label, question, yes, run, extra = {}) {
  if (state.confirming !== key) {
    return button(key, label, () => {
      state.confirming = key;
      render();
      /** @type {HTMLElement | null} */ (document.querySelector(`[data-key="${key}-yes"]`))?.focus();
    }, extra);
  }
  return h('span', { class: 'confirm', role: 'group', 'aria-label': question },
    h('span', {}, question, ' '),
    button(`${key}-yes`, yes, run), ' ',
    button(`${key}-no`, t('confirm.no'), () => {
      state.confirming = null;
      render();
    }));
}

/** The director abandons a table of the running round (E4.2, T4.2: the tournament's host
 * token is the table's host): its scored deals count, the rest do not. */
const abandon = (table) => command(async () => {
  state.confirming = null;
  await call('POST', '/tables/{table_id}/abandon', { params: { path: { table_id: table } }, token: state.mine.host });
  await refresh();
});

/** The director's part: the link to share, registering by hand, the next round. */
function directing(view) {
  if (!director()) return null;
  const link = tournamentLink(tournament, view.visibility === 'private' ? { invitation: state.mine.invitation } : {});
  return h('section', { class: 'panel', id: 'director', 'aria-labelledby': 'director-h' },
    h('h2', { id: 'director-h' }, t('director.heading')),
    view.status === 'registering' ? [
      linkField('registration-link', t('director.link'), link),
      h('form', {
        class: 'sit',
        onsubmit: (e) => {
          e.preventDefault();
          registerFor(e.target.elements.who.value.trim());
          state.typed.who = '';
          e.target.elements.who.value = '';
        },
      },
      h('label', { for: 'who' }, t('director.register')),
      typing('who', { required: true, maxlength: 40 }),
      h('button', { type: 'submit', 'data-key': 'register-for' }, t('register.button'))),
      state.registered.length ? h('ul', { id: 'registered' }, state.registered.map((r, i) => h('li', {},
        linkField(`personal-${i}`, t('director.personal', { name: r.name }), r.link)))) : null,
    ] : null,
    startButton(view));
}

function players(view) {
  return h('section', { class: 'panel', id: 'players', 'aria-labelledby': 'players-h' },
    h('h2', { id: 'players-h' }, t('players.heading', { count: view.players.length })),
    view.players.length ? h('ol', { start: 0 }, view.players.map((name, number) => h('li', { 'data-player': number },
      name, number === state.mine.player && player() ? h('small', {}, ` (${t('players.you')})`) : null)))
      : h('p', {}, t('players.none')));
}

/** A table of a round: its players by seat, and its progress: the running round's from the
 * answer's `tables` (its id, deals scored, whether over), an ended one's from its end. */
function tableLine(table, running) {
  const deals = running?.deals ?? table.deals ?? 0;
  const over = table.ended || Boolean(running?.over);
  const progress = table.abandoned ? t('rounds.abandoned', { count: deals })
    : over ? t('rounds.finished') : t('rounds.progress', { count: deals, deals: 12 });
  const id = running?.table_id;
  return h('li', {
    'data-table': id, 'data-table-no': table.table_no, 'data-deals': deals, 'data-over': String(over), 'data-abandoned': String(table.abandoned),
  },
  h('p', {}, h('strong', {}, t('rounds.table', { table: table.table_no })), ': ',
    table.seats.map((name) => name ?? t('rounds.bot')).join(', '), h('br'),
    h('span', { class: 'progress' }, progress), table.abandoned ? [' ', rule('T4.2', state.rules, false)] : null),
  director() && id ? h('p', { class: 'vacate' },
    button(`table-${id}`, t('rounds.open'), () => toTable(id, { host: state.mine.host }),
      { 'aria-label': t('rounds.open_label', { table: table.table_no }) }),
    over ? null : confirmable(`abandon-${id}`, t('rounds.abandon'), t('rounds.abandon_question', { table: table.table_no }),
      t('host.abandon_yes'), () => abandon(id), { 'aria-label': t('rounds.abandon_label', { table: table.table_no }) })) : null);
}

function rounds(view) {
  if (!view.played.length) return null;
  const running = (r) => (r.ended ? [] : state.answer.tables);
  return h('section', { class: 'panel', id: 'rounds', 'aria-labelledby': 'rounds-h' },
    h('h2', { id: 'rounds-h' }, t('rounds.heading')),
    [...view.played].reverse().map((r) => h('div', { 'data-round': r.round_no, 'data-ended': String(r.ended) },
      h('h3', {}, t('standings.round', { round: r.round_no }), ' · ', t(r.ended ? 'rounds.ended' : 'rounds.running')),
      h('ul', { class: 'tables' }, r.tables.map((table) => tableLine(table, running(r).find((p) => p.table_no === table.table_no)))))));
}

/** What this device keeps of the tournament, and forgetting it. */
function device() {
  if (!director() && !player() && !state.mine.invitation) return null;
  return h('section', { class: 'panel', id: 'device', 'aria-labelledby': 'device-h' },
    h('h2', { id: 'device-h' }, t('menu.device')),
    h('p', {}, t(director() ? 'tournaments.kept_host' : player() ? 'tournaments.kept_player' : 'tournaments.kept_invitation')),
    h('p', {}, button('forget', t('tournaments.forget'), () => {
      forgetTournament(tournament);
      location.reload();
    })));
}

function draw() {
  if (!state.answer) return;
  const view = state.answer.tournament;
  document.title = `${view.name} · doko`;
  document.body.dataset.version = String(state.answer.version);
  document.body.dataset.status = view.status;
  fill(content,
    heading(view),
    state.problem ? problemBox(state.problem, state.rules, () => {
      state.problem = null;
      render();
    }) : null,
    yourTable(view), registration(view), directing(view), rounds(view),
    standingsPanel(state.standings, state.rules), comparisons(tournament, state.standings),
    players(view), device());
}

/** Draw again, not while a click is under way (ui.js `steady`). */
const render = steady(draw);

/** The page of a tournament this browser may not see: a private tournament answers whoever
 * holds none of its credentials as an unknown tournament (404); its registration link (or a
 * personal link) opens it. */
function door(error) {
  const problem = problemOf(error);
  fill(content, h('h1', {}, t('tournaments.unknown')), problemBox(problem, state.rules),
    problem.status === 404 || problem.status === 401 ? h('form', {
      class: 'panel', id: 'enter',
      onsubmit: (e) => {
        e.preventDefault();
        const text = e.target.elements.code.value.trim();
        location.hash = text.includes('#') ? text.slice(text.indexOf('#') + 1) : `invitation=${encodeURIComponent(text)}`;
        location.reload();
      },
    },
    h('p', {}, t('tournaments.door')),
    h('p', {}, h('label', { for: 'code' }, t('door.code')), h('input', { id: 'code', name: 'code', required: true, autocomplete: 'off' })),
    h('p', {}, h('button', { type: 'submit' }, t('tournaments.open')))) : null);
}

async function start() {
  document.getElementById('main').replaceChildren(content, live);
  try {
    const [known, spec] = await Promise.all([meta(), schema(), loadLanguage()]);
    state.rules = ruleTexts(known.rules);
    state.types = Object.keys(spec.components.schemas.TournamentStreamData.discriminator.mapping);
    state.answer = (await call('GET', '/tournaments/{tournament_id}', { params: at, token: pass() })).data;
  } catch (error) {
    door(error);
    return;
  }
  render();
  connect();
  await refresh({ standings: true });
}

start();
