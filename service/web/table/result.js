// The end of a deal (R7-R10) as players tell it: who played with whom, the Augen and why they won, the value's lines, each seat's share.
import { t, term } from '../i18n.js';
import { fill, h, rule, scoreLines, seatName, signed } from '../ui.js';
import { button } from './parts.js';
import { state, table, update } from './store.js';
import { trickLine } from './trick.js';

export const resultDialog = h('dialog', { id: 'result', 'aria-labelledby': 'result-h' });

/** The announcement levels of `Score.levels` (0 none, 1 re/kontra) as the words of R6. */
const LEVEL_WORDS = [null, null, 'no90', 'no60', 'no30', 'schwarz'];
/** R7.2: the card points a party's own refusal needs (schwarz: every trick). */
const OWN_TARGET = { 2: 151, 3: 181, 4: 211 };
/** R7.3: the card points enough against an opposing refusal (schwarz: one trick). */
const AGAINST_TARGET = { 2: 90, 3: 60, 4: 30 };

/** Who played with whom: Re's and Kontra's names, or the soloist against the three others. */
function parties(view, score) {
  const list = new Intl.ListFormat(document.documentElement.lang || 'en', { type: 'conjunction' });
  const names = (seats) => list.format(seats.map((s) => seatName(view.seats, s)));
  const kontra = [0, 1, 2, 3].filter((s) => !score.re_seats.includes(s));
  if (score.solo) {
    return t('result.solo', { soloist: names(score.re_seats), game: term('game', score.game_type), others: names(kontra) });
  }
  return t('result.parties', { re: names(score.re_seats), kontra: names(kontra) });
}

/** Why the winner won (R7.1-R7.5), from the score's levels and Augen, with the rule as a link. */
function why(score) {
  const winner = score.winner;
  if (!winner) return [t('result.why_none'), ' ', rule('R7.5', state.rules, false)];
  const loser = winner === 're' ? 'kontra' : 're';
  const own = score.levels[winner] ?? 0;
  const against = score.levels[loser] ?? 0;
  const params = { party: term('party', winner), other: term('party', loser), points: score.card_points[winner] ?? 0 };
  if (own >= 2) {
    const word = term('word', LEVEL_WORDS[own]);
    return [own === 5 ? t('result.why_own_schwarz', params) : t('result.why_own', { ...params, word, target: OWN_TARGET[own] }),
      ' ', rule('R7.2', state.rules, false)];
  }
  if (against >= 2) {
    const word = term('word', LEVEL_WORDS[against]);
    return [against === 5 ? t('result.why_against_schwarz', { ...params, word })
      : t('result.why_against', { ...params, word, target: AGAINST_TARGET[against] }), ' ', rule('R7.3', state.rules, false)];
  }
  const onlyKontra = (score.levels.kontra ?? 0) >= 1 && (score.levels.re ?? 0) === 0;
  const needs = (winner === 're') === onlyKontra ? 120 : 121;
  return [t(onlyKontra ? 'result.why_only_kontra' : 'result.why_plain', { ...params, target: needs }), ' ', rule('R7.1', state.rules, false)];
}

/** How the value reaches a seat (R10): `3 × 6` for a soloist, the value alone for the others. */
function share(score, entry) {
  const value = Math.abs(score.value);
  const times = value ? Math.abs(entry) / value : 0;
  return times > 1 ? t('result.times', { times, value }) : '';
}

/** The end of a deal: who won and with whom, the Augen and why, the value and its lines, every
 * seat's entry (how the value reaches it) and the running totals, the deal's last trick;
 * "Next" closes it. Shown once per deal scored while this page is open (its deal_scored event). */
export function showResult(view) {
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
    score.solo ? null : h('p', { class: 'game' }, term('game', score.game_type)), // a solo is named with its soloist
    h('p', { class: 'parties', id: 'result-parties' }, parties(view, score)),
    h('p', {}, t('result.eyes', { re: score.card_points.re ?? 0, kontra: score.card_points.kontra ?? 0 })),
    h('p', { class: 'why' }, why(score)),
    h('p', { class: 'value' }, t('result.value', { value: signed(score.value) })),
    scoreLines(score.lines, state.rules),
    h('table', { class: 'totals' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('result.player')), h('th', { scope: 'col' }, t('result.this_deal')),
        h('th', { scope: 'col' }, t('result.total')))),
      h('tbody', {}, score.entries.map((entry, seat) => h('tr', { 'data-entry-seat': seat, 'data-entry': entry },
        h('th', { scope: 'row' }, seatName(view.seats, seat), ' ',
          h('small', {}, score.solo && score.re_seats.includes(seat) ? t('result.soloist')
            : term('party', score.re_seats.includes(seat) ? 're' : 'kontra'))),
        h('td', {}, signed(entry), ' ', h('small', {}, share(score, entry))),
        h('td', { 'data-total': row?.totals[seat] }, row ? signed(row.totals[seat]) : '…'))))),
    record ? trickLine(view, record.tricks.at(-1), record.deal_no, t('trick.last')) : null,
    h('p', { class: 'dialog-buttons' },
      h('a', { href: `/t/${encodeURIComponent(table)}/deals/${scored.deal_no}` }, t('result.step', { deal: scored.deal_no })), ' ',
      button('next', t('result.next'), () => update({ resultClosed: scored.deal_no }))));
  if (!resultDialog.open) resultDialog.showModal();
}
