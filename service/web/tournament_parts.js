// What the tournament pages share: the credentials this browser holds for a tournament, the
// links that carry them, the way to one's seat at a tournament's table, and the standings
// as the service computes them (E6). A tournament's credentials are the director's host
// token, a player's tournament credential and a private tournament's invitation code; like
// a table's, they are kept in localStorage (per tournament, until "forget on this device"),
// go to the service only in a header, and travel in a link only in its fragment, which the
// browser never sends. The pages decide no rule: who may start a round, which deals are
// public, who ranks where, all come from the service's answers.
import { hold } from './api.js';
import { t, term } from './i18n.js';
import { h, rule, signed } from './ui.js';

const PREFIX = 'doko-tournament:';

/** Where this browser kept a tournament's credentials before the service called it a
 * tournament (`doko-event:<id>`): moved once, so that no device loses its host token or its
 * player's credential. */
const FORMER = 'doko-event:';
for (const key of Object.keys(localStorage).filter((k) => k.startsWith(FORMER))) {
  const tournament = key.slice(FORMER.length);
  if (localStorage.getItem(PREFIX + tournament) === null) localStorage.setItem(PREFIX + tournament, localStorage.getItem(key) ?? '{}');
  localStorage.removeItem(key);
}

/**
 * What this browser holds for a tournament: {host} for its director, {invitation} for a
 * private tournament's invitation code, {token, player, name} once registered.
 * @returns {{host?: string, invitation?: string, token?: string, player?: number, name?: string}}
 */
export function heldTournament(tournament) {
  try {
    return JSON.parse(localStorage.getItem(PREFIX + tournament) ?? '{}');
  } catch {
    return {};
  }
}

/** Keep more for a tournament (see `heldTournament`); null values forget. */
export function holdTournament(tournament, more) {
  const now = { ...heldTournament(tournament), ...more };
  for (const key of Object.keys(now)) if (now[key] === null) delete now[key];
  localStorage.setItem(PREFIX + tournament, JSON.stringify(now));
}

/** Forget everything this browser holds for a tournament. */
export const forgetTournament = (tournament) => localStorage.removeItem(PREFIX + tournament);

/** The tournaments this browser holds something for. */
export const heldTournaments = () => Object.keys(localStorage).filter((k) => k.startsWith(PREFIX)).map((k) => k.slice(PREFIX.length));

/** The credential that opens what anyone allowed to see the tournament sees (the host
 * token, the player's credential or the invitation code). */
export const tournamentPass = (mine) => mine.host ?? mine.token ?? mine.invitation;

/** The page of a tournament, with what its link carries in the fragment (`invitation=…` for
 * a private tournament's registration link, `player=…` for a player's personal link). */
export function tournamentLink(tournament, fragment = {}) {
  const parts = Object.entries(fragment).filter(([, v]) => v).map(([k, v]) => `${k}=${encodeURIComponent(v)}`);
  return `${location.origin}/tournament/${encodeURIComponent(tournament)}${parts.length ? `#${parts.join('&')}` : ''}`;
}

/** Keep what this page's link carries in its fragment (an invitation code, a player's
 * credential), then take it out of the address bar. */
export function takeFragment(tournament) {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const invitation = fragment.get('invitation');
  const token = fragment.get('player');
  if (!invitation && !token) return;
  holdTournament(tournament, { ...(invitation ? { invitation } : {}), ...(token ? { token, player: null, name: null } : {}) });
  history.replaceState(null, '', location.pathname + location.search);
}

/** The page of one deal of a round compared across the round's tables. */
export const comparePage = (tournament, round, deal) => `/tournament/${encodeURIComponent(tournament)}/rounds/${round}/deals/${deal}`;

/** Go to a table of the tournament: as a player to their seat (the tournament credential is
 * the seat's token there, E5.2), as the director with the host token (the tables' host). */
export function toTable(table, held) {
  hold(table, held);
  location.assign(`/t/${encodeURIComponent(table)}`);
}

/** Which score ranks by a method (E6.1-E6.3), and the rule that defines it. */
const SCORES = { total_points: ['total', 'E6.1'], placement_points: ['placement', 'E6.2'], duplicate: ['duplicate', 'E6.3'] };

/** A standings column's heading: its word where there is room, on a phone an abbreviation
 * with the word as its title. */
const columnHeading = (key, values = {}) => [
  h('span', { class: 'wide' }, t(`standings.${key}`, values)),
  h('abbr', { class: 'narrow', title: t(`standings.${key}`, values) }, t(`standings.${key}_short`, values)),
];

/** The standings as the service sends them (E6): rank, player, the three scores (the
 * method's first), the deals counted and each round's placement points; the method and
 * its tie-break (E6.4), what counts so far (E6.5) and the abandoned tables (T4.2). */
export function standingsPanel(standings, rules) {
  if (!standings) return null;
  const ranked = SCORES[standings.method]?.[0];
  const columns = Object.values(SCORES).map(([score, id]) => ({ score, id }));
  columns.sort((a, b) => Number(b.score === ranked) - Number(a.score === ranked));
  const rounds = standings.lines[0]?.placements.length ?? 0;
  const number = new Intl.NumberFormat(document.documentElement.lang, { maximumFractionDigits: 2 });
  const show = (score, value) => (score === 'duplicate' ? (value > 0 ? '+' : '') + number.format(value).replace('-', '−') : signed(value));
  return h('section', { class: 'panel', id: 'standings', 'aria-labelledby': 'standings-h', 'data-method': standings.method },
    h('h2', { id: 'standings-h' }, t('standings.heading')),
    h('p', {}, t('standings.method', { method: term('method', standings.method) }), ' ', rule(SCORES[standings.method]?.[1] ?? 'E6', rules, false), '.'),
    h('details', { class: 'small', id: 'tie-break' }, h('summary', {}, t('standings.tie_break')), rule('E6.4', rules)),
    standings.lines.length ? h('div', { class: 'scroll', tabindex: 0, role: 'region', 'aria-labelledby': 'standings-h' }, h('table', { class: 'standings' },
      h('thead', {}, h('tr', {},
        h('th', { scope: 'col' }, columnHeading('rank')), h('th', { scope: 'col' }, t('standings.player')),
        columns.map(({ score }) => h('th', { scope: 'col', class: score === ranked ? 'ranked' : null }, columnHeading(score))),
        h('th', { scope: 'col' }, columnHeading('deals')),
        Array.from({ length: rounds }, (_, r) => h('th', { scope: 'col' }, columnHeading('round', { round: r + 1 }))))),
      h('tbody', {}, standings.lines.map((line) => h('tr', {
        'data-player': line.player, 'data-rank': line.rank, 'data-total': line.total, 'data-placement': line.placement, 'data-duplicate': line.duplicate,
      },
        h('td', {}, `${line.rank}.`), h('th', { scope: 'row' }, line.name),
        columns.map(({ score }) => h('td', { class: score === ranked ? 'ranked' : null }, show(score, line[score]))),
        h('td', {}, String(line.deals)),
        line.placements.map((p) => h('td', {}, p === null ? '–' : signed(p)))))))) : h('p', {}, t('standings.nobody')),
    h('p', { class: 'small', id: 'counted' }, t('standings.counted', {
      deals: standings.public_deals.map((n, r) => t('standings.round_deals', { round: r + 1, count: n })).join(', ') || '–',
      count: standings.rounds_ended,
    }), ' ', rule('E6.5', rules, false)),
    standings.abandoned.length ? h('p', { id: 'abandoned', 'data-tables': standings.abandoned.map((a) => `${a.round_no}/${a.table_no}`).join(' ') }, t('standings.abandoned', {
      tables: standings.abandoned.map((a) => t('standings.abandoned_table', { round: a.round_no, table: a.table_no, count: a.deals })).join('; '),
    }), ' ', rule('T4.2', rules, false)) : null);
}

/** The deals of each round that everyone may compare now (public for the round, E5.3: the
 * standings count them), as links to the comparison. */
export function comparisons(tournament, standings) {
  const rounds = standings?.public_deals ?? [];
  if (!rounds.some(Boolean)) return null;
  return h('section', { class: 'panel', id: 'compare', 'aria-labelledby': 'compare-h' },
    h('h2', { id: 'compare-h' }, t('compare.heading')),
    h('p', {}, t('compare.about')),
    rounds.map((count, r) => (count ? h('p', { 'data-round': r + 1 }, h('strong', {}, t('standings.round', { round: r + 1 })), ': ',
      Array.from({ length: count }, (_, d) => [d ? ' ' : '', h('a', {
        href: comparePage(tournament, r + 1, d + 1), 'data-compare': `${r + 1}/${d + 1}`,
        'aria-label': t('compare.link', { round: r + 1, deal: d + 1 }),
      }, String(d + 1))])) : null)));
}
