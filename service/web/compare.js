// One deal of one round at every table of the round, side by side (compareDeal):
// the same cards in the same seats (E5.1), and each table's players, contract,
// announcements, tricks and score, from the tables' deal records. Open only once every
// table of the round has scored the deal (E5.3): before, the service's refusal says so.
import { call, meta, problemOf } from './api.js';
import { comparePage, heldTournament, takeFragment, tournamentPass } from './tournament_parts.js';
import { loadLanguage, ruleTexts, t, term } from './i18n.js';
import { card, fill, given, h, problemBox, rule, saidFor, scoreLines, seatOfCard, signed } from './ui.js';

const [, , rawTournament, , rawRound, , rawDeal] = location.pathname.split('/');
const tournament = decodeURIComponent(rawTournament);
const roundNo = Number(rawRound);
const dealNo = Number(rawDeal);
takeFragment(tournament);
const content = h('div', { class: 'compare-page' });
const state = { rules: {} };

const nameOf = (table, seat) => table.players[seat] ?? t('seat.number', { seat });

/** The hands as dealt, the same at every table (E5.1): by seat, with who held them where. */
function hands(tables) {
  const record = tables.find((table) => table.record)?.record;
  if (!record) return null;
  return h('section', { class: 'panel', id: 'hands', 'aria-labelledby': 'hands-h' },
    h('h2', { id: 'hands-h' }, t('compare.hands'), ' ', rule('E5.1', state.rules, false)),
    h('div', { class: 'hands' }, record.hands.map((dealt, seat) => h('div', { class: 'dealt', 'data-hand': seat },
      h('p', {}, h('strong', {}, t('seat.number', { seat })), ': ',
        tables.map((table) => t('compare.held_by', { name: nameOf(table, seat), table: table.table_no })).join(', ')),
      h('p', { class: 'cards' }, dealt.map((code) => card(code, seat, dealNo)))))));
}

function contract(table, record) {
  return h('div', { class: 'contract' },
    h('h4', {}, t('compare.contract')),
    h('p', { 'data-game': record.game_type }, given(record.declarer)
      ? t('event.game_by', { game: term('game', record.game_type), declarer: nameOf(table, record.declarer) })
      : t('event.game', { game: term('game', record.game_type) })),
    h('p', { class: 'small' }, record.declarations.map((d, seat) => `${nameOf(table, seat)}: ${d ? term('declaration', d) : '—'}`).join(', ')),
    h('p', { class: 'small' }, record.parties.map((p, seat) => `${nameOf(table, seat)}: ${p ? term('party', p) : '—'}`).join(', ')));
}

function announcements(table, record) {
  return h('div', { class: 'announced' },
    h('h4', {}, t('compare.announcements')),
    record.announcements.length ? h('ul', {}, record.announcements.map((a) => h('li', {},
      t(a.late_reply ? 'announcements.late' : 'announcements.line', {
        who: nameOf(table, a.seat), words: saidFor(a.words, a.party), count: a.cards,
      })))) : h('p', {}, t('compare.no_announcements')));
}

function tricks(table, record) {
  return h('div', { class: 'tricks' },
    h('h4', {}, t('compare.tricks')),
    h('ol', {}, record.tricks.map((trick) => h('li', { 'data-trick': trick.trick_no, 'data-winner': trick.winner },
      trick.cards.map((code, i) => card(code, seatOfCard(trick.leader, i), dealNo)), ' ',
      h('small', {}, t('viewer.wins', { who: nameOf(table, trick.winner), count: trick.points }))))));
}

function score(table, record) {
  const s = record.score;
  return h('div', { class: 'score', 'data-value': s.value, 'data-winner': s.winner ?? '' },
    h('h4', {}, s.winner ? t('viewer.score_won', { party: term('party', s.winner), value: signed(s.value) })
      : t('viewer.score_none', { value: signed(s.value) })),
    h('p', {}, t('viewer.points', {
      re: s.card_points.re ?? 0, kontra: s.card_points.kontra ?? 0, re_tricks: s.tricks.re ?? 0, kontra_tricks: s.tricks.kontra ?? 0,
    })),
    scoreLines(s.lines, state.rules),
    h('ul', { class: 'entries' }, s.entries.map((entry, seat) => h('li', { 'data-entry-seat': seat, 'data-entry': entry },
      `${nameOf(table, seat)} ${signed(entry)}`))));
}

function column(table) {
  const record = table.record;
  return h('section', { class: 'panel column', 'data-table': table.table_id, 'aria-labelledby': `table-${table.table_no}-h` },
    h('h3', { id: `table-${table.table_no}-h` }, t('rounds.table', { table: table.table_no })),
    h('p', { class: 'small' }, table.players.map((name, seat) => `${seat}: ${name}`).join(' · ')),
    record ? [contract(table, record), announcements(table, record), tricks(table, record), score(table, record),
      h('p', {}, h('a', { href: `/t/${encodeURIComponent(table.table_id)}/deals/${dealNo}` }, t('compare.viewer')))]
      : h('p', {}, t('compare.not_played'), ' ', rule('T4.2', state.rules, false)));
}

function links() {
  return h('p', {}, h('a', { href: `/tournament/${encodeURIComponent(tournament)}` }, t('compare.back')),
    dealNo > 1 ? [' · ', h('a', { href: comparePage(tournament, roundNo, dealNo - 1) }, t('viewer.previous_deal'))] : null,
    dealNo < 12 ? [' · ', h('a', { href: comparePage(tournament, roundNo, dealNo + 1) }, t('viewer.next_deal'))] : null);
}

async function start() {
  document.getElementById('main').replaceChildren(content);
  const title = () => t('compare.title', { round: roundNo, deal: dealNo });
  try {
    const [known] = await Promise.all([meta(), loadLanguage()]);
    state.rules = ruleTexts(known.rules);
    const compared = (await call('GET', '/tournaments/{tournament_id}/rounds/{round_no}/deals/{deal_no}', {
      params: { path: { tournament_id: tournament, round_no: roundNo, deal_no: dealNo } }, token: tournamentPass(heldTournament(tournament)),
    })).data;
    document.title = `${title()} · doko`;
    fill(content, h('h1', {}, title()), links(), hands(compared.tables),
      h('div', { class: 'columns' }, compared.tables.map(column)));
  } catch (error) {
    fill(content, h('h1', {}, title()), problemBox(problemOf(error), state.rules), links());
  }
}

start();
