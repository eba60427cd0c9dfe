// The deal's announcements so far (Re, Kontra, keine 90 …): who said what, for which party, with how many cards left.
import { t } from '../i18n.js';
import { h, saidFor, seatName } from '../ui.js';

/** The announcements part of the running deal (the menu's "announcements", id `tricks`). */
export function announcements(view, deal) {
  return h('section', { class: 'panel', id: 'tricks', 'aria-labelledby': 'tricks-h' },
    h('h2', { id: 'tricks-h' }, t('menu.announcements')),
    deal.announcements.length ? null : h('p', {}, t('announcements.none')),
    h('ul', { class: 'announcements', 'aria-label': t('menu.announcements') }, deal.announcements.map((a) => h('li', {},
      t(a.late_reply ? 'announcements.late' : 'announcements.line', {
        who: seatName(view.seats, a.seat), words: saidFor(a.words, a.party), count: a.cards,
      })))));
}
