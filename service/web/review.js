// The deal viewer's review: every decision of each seat priced by the expert bot from what
// that seat saw (`GET /tables/{table_id}/deals/{deal_no}/review`), each seat's three
// costliest marked. Asked for on demand: the first review of a deal takes the server
// seconds of CPU.
import { call, problemOf } from './api.js';
import { t, term } from './i18n.js';
import { card, h, problemBox } from './ui.js';

/** An alternative as people read it: a card, a word (or saying nothing), a declaration, a
 * contract. */
function option(kind, value, seat, deal) {
  if (kind === 'card') return card(value, seat, deal);
  if (kind === 'word') return value === 'none' ? t('review.silent') : term('word', value);
  if (kind === 'declaration') return term('declaration', value);
  return term('game', value);
}

/** When each decision was made: 0 before play, else its trick (the cards counted in order). */
function tricks(decisions) {
  let cards = 0;
  return decisions.map((d) => {
    if (d.kind === 'card') cards += 1;
    if (d.kind === 'card') return Math.floor((cards - 1) / 4) + 1;
    return d.kind === 'word' ? Math.floor(cards / 4) + 1 : 0;
  });
}

/** Expected points lost, with two decimals in the page's language (German "2,00"). */
function points(value) {
  return new Intl.NumberFormat(document.documentElement.lang, { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(value);
}

function line(d, when, deal) {
  return [
    when ? t('review.in_trick', { trick: when }) : t('review.before'), ': ',
    term('decision_kind', d.kind), ' ', option(d.kind, d.chosen, d.seat, deal),
    d.lost > 0 ? [' · ', t('review.best'), ' ', option(d.kind, d.best, d.seat, deal), ' · ', t('review.lost', { points: points(d.lost) })] : '',
  ];
}

/** The review panel: a button until the review is asked for, then each seat's summary and
 * every decision (the costliest marked). `view` holds the review (or its problem); `again`
 * renders the page anew. */
export function reviewPanel(view, at, token, names, deal, again) {
  const ask = async () => {
    view.loading = true;
    again();
    try {
      view.review = (await call('GET', '/tables/{table_id}/deals/{deal_no}/review', { params: at, token })).data;
    } catch (error) {
      view.problem = problemOf(error);
    }
    view.loading = false;
    again();
  };
  const review = view.review;
  const body = [];
  if (!review) {
    body.push(h('p', {}, t('review.about')),
      h('p', {}, h('button', { type: 'button', 'data-key': 'review', onclick: ask, disabled: view.loading },
        t(view.loading ? 'review.computing' : 'review.ask'))));
  } else {
    const when = tricks(review.decisions);
    body.push(h('p', {}, t('review.about')),
      h('div', { class: 'review-seats' }, review.seats.map((s) => h('div', { 'data-review-seat': s.seat, 'data-lost': s.lost },
        h('h3', {}, names[s.seat], ' · ', t('review.lost', { points: points(s.lost) })),
        s.costliest.length
          ? h('ol', { class: 'costliest' }, s.costliest.map((i) => h('li', { 'data-decision': i },
            line(review.decisions[i], when[i], deal))))
          : h('p', {}, t('review.none_lost'))))),
      h('details', {},
        h('summary', {}, t('review.all', { count: review.decisions.length })),
        h('ol', { class: 'decisions' }, review.decisions.map((d, i) => h('li', {
          'data-decision': i,
          class: review.seats[d.seat].costliest.includes(i) ? 'costly' : '',
        }, names[d.seat], ' · ', line(d, when[i], deal))))));
  }
  return h('section', { class: 'panel', id: 'review', 'aria-labelledby': 'review-h' },
    h('h2', { id: 'review-h' }, t('review.title')), body,
    view.problem ? problemBox(view.problem, {}, () => {
      view.problem = null;
      again();
    }) : null);
}
