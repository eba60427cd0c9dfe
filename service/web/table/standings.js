// The end of the session (R1.3) as a dialog: the final standings, highest total first, the winners, the sheet and the export.
import { t } from '../i18n.js';
import { fill, h, rule, seatName, signed } from '../ui.js';
import { exportSession } from './commands.js';
import { button } from './parts.js';
import { resultDialog } from './result.js';
import { state, update } from './store.js';

export const standingsDialog = h('dialog', { id: 'standings', 'aria-labelledby': 'standings-h' });

/** The end of the session (R1.3): the final standings from the scoresheet, highest total
 * first, with its winners, a link to the scoresheet and the export; shown once the session
 * is finished (after the last deal's result is closed), until "Close". */
export function showStandings(view) {
  const sheet = state.sheet;
  const shown = view.status === 'finished' && sheet?.winners && !state.standingsClosed && !resultDialog.open;
  if (!shown) {
    if (standingsDialog.open) standingsDialog.close();
    return;
  }
  const order = view.seats.map((s) => s.seat).sort((a, b) => sheet.totals[b] - sheet.totals[a]);
  const close = () => update({ standingsClosed: true });
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
