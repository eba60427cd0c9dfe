// The end of a deal (R8-R10) as a dialog: who won, the value and its lines, every seat's entry and total, the last trick, "Next".
import { t, term } from '../i18n.js';
import { fill, h, scoreLines, seatName, signed } from '../ui.js';
import { button } from './parts.js';
import { state, table, update } from './store.js';
import { trickLine } from './trick.js';

export const resultDialog = h('dialog', { id: 'result', 'aria-labelledby': 'result-h' });

/** The end of a deal (R8-R10): who won, the value and its lines, every seat's entry and the
 * running totals, the deal's last trick; "Next" closes it. Shown once per deal scored while
 * this page is open (its deal_scored event). */
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
      button('next', t('result.next'), () => update({ resultClosed: scored.deal_no }))));
  if (!resultDialog.open) resultDialog.showModal();
}
