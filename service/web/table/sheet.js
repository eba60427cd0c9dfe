// The scoresheet: each deal's entries with running totals (and who played a seat), the totals, the winners.
import { t, term } from '../i18n.js';
import { h, rule, seatName, signed } from '../ui.js';
import { state, table } from './store.js';

/** A scoresheet cell: the seat's entry, its running total, and who played the seat in that
 * deal when that is not (only) who sits there now (T2.2). */
function sheetCell(view, row, seat) {
  const by = row.players?.[seat] ?? [];
  const other = by.length > 1 || (by.length === 1 && by[0] !== view.seats[seat].name);
  return h('td', { 'data-entry': row.entries[seat], 'data-total': row.totals[seat], 'data-players': JSON.stringify(by) },
    `${signed(row.entries[seat])} `, h('small', {}, `(${signed(row.totals[seat])})`),
    other ? h('small', { class: 'by' }, t('sheet.played_by', { players: by.join(t('sheet.then')) })) : null);
}

/** The game of a deal, marked when it was not a normal game: the solo and its soloist, the
 * Hochzeit (R5, public once the deal is scored: R4.3). */
function gameMark(view, row) {
  if (!row.game_type || row.game_type === 'normal') return null;
  const game = term('game', row.game_type);
  const text = row.solo ? t('sheet.solo', { game, soloist: seatName(view.seats, row.re_seats[0]) }) : game;
  return h('small', { class: 'game', 'data-game': row.game_type }, text);
}

/** The scoresheet part, once a deal is scored (R1.3 for the winners, T4.2 when abandoned). */
export function sheetSection(view) {
  const sheet = state.sheet;
  if (!sheet || !sheet.rows.length) return null;
  const names = view.seats.map((s) => seatName(view.seats, s.seat));
  return h('section', { class: 'panel', id: 'sheet', 'aria-labelledby': 'sheet-h' },
    h('h2', { id: 'sheet-h' }, t('menu.sheet')),
    h('div', { class: 'scroll' }, h('table', {},
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('sheet.deal')), names.map((n) => h('th', { scope: 'col' }, n)))),
      h('tbody', {}, sheet.rows.map((row) => h('tr', { 'data-deal': row.deal_no },
        h('th', { scope: 'row' }, h('a', { href: `/t/${encodeURIComponent(table)}/deals/${row.deal_no}` }, `${row.deal_no}`),
          gameMark(view, row), row.bock ? h('small', { class: 'bock', 'data-bock': 'true' }, ` ${t('sheet.bock')}`) : null,
          row.duty_solo ? h('small', { class: 'duty-solo', 'data-duty-solo': 'true' }, ` ${t('sheet.duty_solo')}`) : null),
        row.entries.map((_, seat) => sheetCell(view, row, seat))))),
      h('tfoot', {}, h('tr', {}, h('th', { scope: 'row' }, t('result.total')), sheet.totals.map((n) => h('td', { class: 'total' }, signed(n))))))),
    h('p', { class: 'session-length' }, t('sheet.session_length', { count: sheet.deals }), ' ', rule('V6.1', state.rules, false)),
    sheet.duty_owed?.length ? h('p', { class: 'duty-owed', 'data-duty-owed': JSON.stringify(sheet.duty_owed) },
      t('sheet.duty_owed', { who: sheet.duty_owed.map((s) => names[s]).join(t('list.and')) }), ' ', rule('V6.2', state.rules, false)) : null,
    sheet.winners ? h('p', { class: 'winners' }, t('sheet.winners', { winners: sheet.winners.map((s) => names[s]).join(t('list.and')) }), ' ',
      rule('R1.3', state.rules, false)) : null,
    sheet.abandoned ? h('p', {}, t('sheet.abandoned', { count: sheet.rows.length }), ' ', rule('T4.2', state.rules, false)) : null);
}
