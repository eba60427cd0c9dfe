// The table's log: every event this page received, in words, folded away.
import { t } from '../i18n.js';
import { describe, h } from '../ui.js';
import { state } from './store.js';

/** The log part: the events since the page's stream started (`data-from`), each in words. */
export function logSection(view) {
  return h('details', {
    class: 'panel', id: 'log', open: state.logOpen,
    ontoggle: (e) => { state.logOpen = e.target.open; },
  },
  h('summary', {}, t('log.title', { count: state.log.length })),
  h('ol', { 'data-from': state.from }, state.log.map((event) => h('li', { 'data-id': event.id, 'data-type': event.type },
    describe(event, view.seats, event.deal)))));
}
