// The table's heading: its name, who this tab is, the deal and its phase, the menu of the parts behind the board, its end.
import { t, term } from '../i18n.js';
import { given, h, houseRules, rule, seatName } from '../ui.js';
import { exportSession } from './commands.js';
import { MENU, openPart } from './panels.js';
import { seated, state } from './store.js';

function phaseText(view, deal) {
  if (deal.phase === 'play' || deal.phase === 'scored') {
    const game = term('game', deal.game_type ?? 'normal');
    const text = given(deal.declarer) ? t('table.game_by', { game, declarer: seatName(view.seats, deal.declarer) }) : game;
    return deal.phase === 'scored' ? t('table.scored', { game: text }) : text;
  }
  return term('phase', deal.phase);
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

/** The table's heading, with the menu bar of the parts of the table that are there now
 * (`present`: their ids): buttons that open their dialogs while the board is there
 * (`dialogs`), else links to them on the page. */
export function heading(view, present, dialogs) {
  const deal = view.deal;
  return h('header', { class: 'table-head' },
    h('h1', {}, view.name || t('table.unnamed')),
    h('p', { class: 'where' },
      seated() ? t('table.you_play', { name: seatName(view.seats, state.mine.seat), seat: state.mine.seat }) : t('table.watching'),
      deal ? ` · ${t('table.deal', { deal: deal.deal_no, deals: view.deals, dealer: seatName(view.seats, deal.dealer) })} · ${phaseText(view, deal)}` : '',
      houseRules(view.rules) ? [' · ', houseRules(view.rules)] : null),
    h('nav', { class: 'menu', 'aria-label': t('menu.label') },
      MENU.filter(([id]) => present.includes(id)).map(([id, label]) => (dialogs
        ? h('button', { type: 'button', class: 'menu-button', 'data-menu': id, 'aria-haspopup': 'dialog', onclick: () => openPart(id) }, t(label))
        : h('a', { href: `#${id}`, 'data-menu': id }, t(label))))),
    ending(view));
}
