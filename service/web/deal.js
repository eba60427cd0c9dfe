// The deal viewer, for auditors: a scored deal from its public record, trick by trick
// (buttons, or the arrow keys, Home and End), with the announcements at the moment they
// were made, the score lines with their rule ids, the dealing commitment and seed, and the
// service's own verification of the deal, who played each seat (T2.2), and on demand the
// expert bot's review of every decision (`review.js`). A private table's
// deals open with the credential this tab holds for it (T1.1). A deal of a tournament's
// table links to the same deal at the round's other tables: its record is public only once
// every table of the round has scored it (E5.3).
import { call, download, held, meta, problemOf, takeInvitation } from './api.js';
import { comparePage, heldTournament, tournamentPass } from './tournament_parts.js';
import { loadLanguage, ruleTexts, t, term } from './i18n.js';
import { reviewPanel } from './review.js';
import {
  card, cardOfSeat, fill, given, h, houseRules, problemBox, rule, saidFor, scoreLines, seatOfCard, signed,
} from './ui.js';

const [, , rawTable, , rawDeal] = location.pathname.split('/');
const table = decodeURIComponent(rawTable);
const dealNo = Number(rawDeal);
/** The path parameters of this table's operations, of this deal's. */
const at = { path: { table_id: table } };
const atDeal = { path: { table_id: table, deal_no: dealNo } };
takeInvitation(table);
const mine = held(table);
/** What opens a private table's records: the host token or the invitation (they last), else
 * the seat token. */
const token = mine.host ?? mine.invitation ?? mine.token;
const content = h('div', { class: 'deal-page' });
const live = h('p', { id: 'step', class: 'live', 'aria-live': 'polite' });
const state = { step: 0, record: null, moments: [], verification: null, view: null, rules: {}, problem: null, compare: null };
/** The review of the deal, once asked for (`review.js`). */
const reviewed = { review: null, problem: null, loading: false };

/** Table `t` of round `r` of a tournament is `<tournament>-r<r>t<t>` (docs/tournaments.md):
 * the tournament's own answer confirms it, and the comparison of this deal is linked when
 * the round has that table. */
async function comparison() {
  const named = table.match(/^(\w+)-r(\d+)t(\d+)$/);
  if (!named) return;
  const [, tournament, round, number] = named;
  try {
    const view = (await call('GET', '/tournaments/{tournament_id}', {
      params: { path: { tournament_id: tournament } }, token: tournamentPass(heldTournament(tournament)) ?? token,
    })).data.tournament;
    if (view.played[Number(round) - 1]?.tables.some((at) => at.table_no === Number(number))) state.compare = comparePage(tournament, Number(round), dealNo);
  } catch {
    // not a tournament's table (or not one this browser may see): no comparison
  }
}

/** When each announcement was made: the trick it was made in (1-12; 1-10 without nines) and
 * how many cards of that trick had been played, read from the deal's events in their order. */
function moments(events) {
  let completed = 0;
  let played = 0;
  const found = [];
  for (const event of events) {
    if (event.type === 'card_played') played += 1;
    if (event.type === 'trick_won') {
      completed += 1;
      played = 0;
    }
    if (event.type === 'announced') found.push({ ...event, trick: completed + 1, after: played });
  }
  return found;
}

/** Each seat's dealt cards, sorted by the server for the deal's game type, those played by
 * the end of trick `step` marked with their trick. */
function handsAt(record, step) {
  return record.sorted_hands.map((dealt, seat) => {
    const marks = dealt.map(() => null);
    record.tricks.slice(0, step).forEach((trick) => {
      const played = cardOfSeat(trick.cards, trick.leader, seat);
      const index = dealt.findIndex((c, i) => c === played && marks[i] === null);
      marks[index] = trick.trick_no;
    });
    return dealt.map((code, i) => ({ code, trick: marks[i] }));
  });
}

const names = () => state.record.players.map((name, seat) => name ?? t('seat.number', { seat }));

/** Who played a seat in this deal, when that was not (only) who sat there at its end (T2.2). */
function playedBy(record, seat) {
  const by = record.played_by?.[seat] ?? [];
  if (by.length === 1 && by[0] === record.players[seat]) return null;
  return by.length ? h('span', { class: 'by', 'data-played-by': JSON.stringify(by) }, ` · ${t('sheet.played_by', { players: by.join(t('sheet.then')) })}`) : null;
}

function hands(record, step) {
  return h('section', { class: 'panel', 'aria-labelledby': 'hands-h' },
    h('h2', { id: 'hands-h' }, step ? t('viewer.hands_after', { trick: step }) : t('viewer.hands_dealt')),
    h('div', { class: 'hands' }, handsAt(record, step).map((cards, seat) => h('div', { class: 'dealt', 'data-hand': seat },
      h('p', {}, h('strong', {}, names()[seat]), playedBy(record, seat),
        record.parties[seat] ? ` · ${term('party', record.parties[seat])}` : '',
        record.declarations[seat] ? ` · ${term('declaration', record.declarations[seat])}` : '',
        record.contracts[seat] ? ` · ${t('viewer.named', { contract: term('game', record.contracts[seat]) })}` : ''),
      h('p', { class: 'cards' }, cards.map(({ code, trick }) => card(code, seat, record.deal_no, trick === null ? {} : {
        class: `card played${trick === step ? ' now' : ''}`, title: t('viewer.played_in', { trick }), 'data-played-in': trick,
      })))))));
}

/** V4.6: the Armut of a scored deal, public in its record: who offered, who refused, who
 * took the trumps and what came back. */
function poverty(record) {
  const p = record.poverty;
  return h('p', { class: 'poverty' }, t('viewer.poverty', { who: names()[p.poor], count: p.given }), ' ',
    (p.given_cards ?? []).map((c) => card(c, p.poor, record.deal_no)), ' ', rule('V4.3', state.rules, false),
    (p.refused ?? []).map((s) => ` ${t('event.poverty_refused', { who: names()[s] })}.`),
    given(p.partner) ? [` ${t('viewer.poverty_back', { who: names()[p.partner], count: p.returned })} `,
      (p.returned_cards ?? []).map((c) => card(c, p.partner, record.deal_no))] : '');
}

function trickPanel(record, step) {
  if (!step) {
    return h('section', { class: 'panel', id: 'trick', 'aria-labelledby': 'trick-h' },
      h('h2', { id: 'trick-h' }, t('viewer.before')),
      record.dealing.redeal ? h('p', { class: 'redeal' }, t('viewer.dealt_again', { count: record.dealing.redeal + 1 }), ' ',
        rule('V4.8', state.rules, false)) : null,
      h('p', {}, t('viewer.dealt', { dealer: names()[record.dealer] }), ' ', rule('R4.1', state.rules, false), ' ',
        record.declarations.map((d, seat) => `${names()[seat]} ${d ? term('declaration', d) : '—'}`).join(', ')),
      h('p', {}, given(record.declarer)
        ? t('event.game_by', { game: term('game', record.game_type), declarer: names()[record.declarer] })
        : t('event.game', { game: term('game', record.game_type) }),
      record.marriage_clarified_in ? `; ${t('viewer.clarified', { trick: record.marriage_clarified_in })}` : '',
      given(record.schweinchen) ? `; ${t('viewer.schweinchen', { who: names()[record.schweinchen] })}` : ''),
      record.poverty ? poverty(record) : null,
      given(record.forced) ? h('p', { class: 'forced' }, t('move.forced', { who: names()[record.forced] }), ' ', rule('V6.7', state.rules, false)) : null,
      record.score.duty_solo ? h('p', { class: 'duty-solo' }, t('move.duty_solo'), ' ', rule('V6.6', state.rules, false)) : null);
  }
  const trick = record.tricks[step - 1];
  return h('section', {
    class: 'panel', id: 'trick', 'data-trick': trick.trick_no, 'data-winner': trick.winner, 'data-points': trick.points,
    'aria-labelledby': 'trick-h',
  },
  h('h2', { id: 'trick-h' }, t('viewer.trick', { trick: trick.trick_no, tricks: record.tricks.length })),
  h('ol', { class: 'trick-cards' }, trick.cards.map((code, i) => {
    const seat = seatOfCard(trick.leader, i);
    return h('li', {}, `${names()[seat]}${i === 0 ? ` ${t('viewer.leads')}` : ''}: `, card(code, seat, record.deal_no));
  })),
  h('p', {}, t('viewer.wins', { who: names()[trick.winner], count: trick.points })));
}

function announcements(step) {
  const made = state.moments.filter((m) => m.trick <= step);
  return h('section', { class: 'panel', 'aria-labelledby': 'ann-h' },
    h('h2', { id: 'ann-h' }, t('viewer.announcements')),
    made.length ? h('ul', { id: 'announcements' }, made.map((m) => h('li', { 'data-trick': m.trick },
      t('viewer.announcement', {
        who: names()[m.seat], words: saidFor(m.words, m.party), trick: m.trick, after: m.after, count: m.cards,
      }),
      m.late_reply ? `, ${t('viewer.late')}` : ''))) : h('p', {}, t('announcements.none')));
}

function scorePanel(record) {
  const score = record.score;
  return h('section', {
    class: 'panel', id: 'score', 'data-deal': record.deal_no, 'data-value': score.value, 'aria-labelledby': 'score-h',
  },
    h('h2', { id: 'score-h' }, score.winner ? t('viewer.score_won', { party: term('party', score.winner), value: signed(score.value) })
      : t('viewer.score_none', { value: signed(score.value) })),
    h('p', {}, t('viewer.points', {
      re: score.card_points.re ?? 0, kontra: score.card_points.kontra ?? 0, re_tricks: score.tricks.re ?? 0, kontra_tricks: score.tricks.kontra ?? 0,
    })),
    scoreLines(score.lines, state.rules),
    h('ul', { class: 'entries' }, score.entries.map((entry, seat) => h('li', { 'data-entry-seat': seat, 'data-entry': entry },
      `${names()[seat]} ${signed(entry)}`))),
    h('p', {}, t('viewer.entries'), ' ', rule(score.solo ? 'R10.2' : 'R10.1', state.rules, false)));
}

function dealing(record) {
  const d = record.dealing;
  const v = state.verification;
  const checks = v ? [...v.deal.checks, ...v.table_checks] : [];
  const over = ['finished', 'abandoned'].includes(state.view?.status);
  return h('section', { class: 'panel', id: 'dealing', 'aria-labelledby': 'dealing-h' },
    h('h2', { id: 'dealing-h' }, t('viewer.dealing'), ' ', rule('R2.2', state.rules, false)),
    h('dl', {},
      h('dt', {}, t('viewer.method')), h('dd', {}, d.method, d.algorithm ? ` (${d.algorithm})` : ''),
      d.commitment ? [h('dt', {}, t('viewer.commitment')), h('dd', { class: 'hex' }, d.commitment)] : null,
      record.published_commitment ? [h('dt', {}, t('viewer.published')), h('dd', { class: 'hex' }, record.published_commitment)] : null,
      d.seed ? [h('dt', {}, t('viewer.seed')), h('dd', { class: 'hex', id: 'seed' }, d.seed)] : null,
      d.entropy?.some(Boolean) ? [h('dt', {}, t('viewer.entropy')), h('dd', { class: 'hex' }, d.entropy.map((e, s) => `${names()[s]}: ${e || '—'}`).join('; '))] : null),
    v ? h('div', { id: 'verification', 'data-ok': String(v.ok) },
      h('p', {}, h('strong', {}, t(v.ok ? 'viewer.verified' : 'viewer.failed'))),
      h('ul', {}, checks.map((c) => h('li', { 'data-check': c.name, 'data-ok': String(c.ok) }, `${c.ok ? '✓' : '✗'} ${c.name}`, c.detail ? `: ${c.detail}` : '')))) : null,
    over
      ? h('p', {}, h('button', { type: 'button', 'data-key': 'export', onclick: exportSession }, t('export.download')),
        ' ', t('export.check'), ' ', h('code', {}, 'doko verify --file'))
      : h('p', {}, t('viewer.export_later')),
    state.problem ? problemBox(state.problem, state.rules, () => {
      state.problem = null;
      render();
    }) : null);
}

async function exportSession() {
  try {
    await download('/tables/{table_id}/export', { params: at, token, filename: `doko-${table}.json` });
  } catch (error) {
    state.problem = problemOf(error);
    render();
  }
}

function go(step) {
  const last = state.record.tricks.length;
  state.step = Math.min(Math.max(step, 0), last);
  render();
}

function controls(record) {
  const last = record.tricks.length;
  const step = state.step;
  return h('nav', { class: 'steps', 'aria-label': t('viewer.steps') },
    h('button', { type: 'button', 'data-key': 'first', onclick: () => go(0), disabled: step === 0, 'aria-keyshortcuts': 'Home' }, t('viewer.first')),
    h('button', { type: 'button', 'data-key': 'previous', onclick: () => go(step - 1), disabled: step === 0, 'aria-keyshortcuts': 'ArrowLeft' }, t('viewer.previous')),
    h('button', { type: 'button', 'data-key': 'next', onclick: () => go(step + 1), disabled: step === last, 'aria-keyshortcuts': 'ArrowRight' }, t('viewer.next')),
    h('button', { type: 'button', 'data-key': 'last', onclick: () => go(last), disabled: step === last, 'aria-keyshortcuts': 'End' }, t('viewer.last')));
}

function render() {
  const record = state.record;
  document.body.dataset.step = String(state.step);
  fill(content,
    h('h1', {}, t('viewer.title', { deal: record.deal_no, table: state.view?.name || record.table })),
    h('p', {}, h('a', { href: `/t/${encodeURIComponent(table)}` }, t('mine.back')),
      record.deal_no > 1 ? [' · ', h('a', { href: `/t/${encodeURIComponent(table)}/deals/${record.deal_no - 1}` }, t('viewer.previous_deal'))] : null,
      state.view && record.deal_no < state.view.scoresheet.length ? [' · ', h('a', { href: `/t/${encodeURIComponent(table)}/deals/${record.deal_no + 1}` }, t('viewer.next_deal'))] : null,
      houseRules(state.view?.rules) ? [' · ', houseRules(state.view.rules)] : null),
    state.compare ? h('p', {}, h('a', { href: state.compare, id: 'compare-link' }, t('compare.from_viewer'))) : null,
    controls(record),
    h('div', { class: 'viewer' }, trickPanel(record, state.step), announcements(state.step)),
    hands(record, state.step),
    scorePanel(record),
    reviewPanel(reviewed, atDeal, token, names(), record.deal_no, render),
    dealing(record));
  live.textContent = state.step
    ? t('viewer.step', { trick: state.step, who: names()[record.tricks[state.step - 1].winner], count: record.tricks[state.step - 1].points })
    : t('viewer.hands_dealt');
}

document.addEventListener('keydown', (e) => {
  if (!state.record || e.altKey || e.ctrlKey || e.metaKey || /** @type {Element} */ (e.target).closest?.('input, select, textarea')) return;
  const moves = { ArrowLeft: state.step - 1, ArrowRight: state.step + 1, Home: 0, End: state.record.tricks.length };
  if (!(e.key in moves)) return;
  e.preventDefault();
  go(moves[e.key]);
});

async function start() {
  document.getElementById('main').replaceChildren(content, live);
  try {
    const [known, record, replay, verification, view] = await Promise.all([
      meta().then(async (rules) => {
        await loadLanguage();
        return rules;
      }),
      call('GET', '/tables/{table_id}/deals/{deal_no}', { params: atDeal, token }),
      call('GET', '/tables/{table_id}/deals/{deal_no}/replay', { params: atDeal, token }),
      call('GET', '/tables/{table_id}/deals/{deal_no}/verification', { params: atDeal, token }),
      call('GET', '/tables/{table_id}', { params: at, token }),
    ]);
    state.rules = ruleTexts(known.rules);
    state.record = record.data;
    state.moments = moments(replay.data.events);
    state.verification = verification.data;
    state.view = view.data;
    document.title = `${t('viewer.deal', { deal: dealNo })} · ${state.view.name || 'doko'}`;
    await comparison();
  } catch (error) {
    fill(content, h('h1', {}, t('viewer.deal', { deal: dealNo })), problemBox(problemOf(error), state.rules),
      h('p', {}, h('a', { href: `/t/${encodeURIComponent(table)}` }, t('mine.back'))));
    return;
  }
  render();
}

start();
