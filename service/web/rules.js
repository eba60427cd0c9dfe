// The rules the service enforces, by id: the game's (R1-R10, from the package's copy of
// RULES.md), the table's house rules (T1-T4, as domain/table.py states them) and the
// tournament's (E1-E6, as domain/tournament.py, seating.py and standings.py state them), the
// house rules a table may choose (V1-V6, as domain/variants/ states them) and the names people
// give (N1-N4, as domain/names.py states them), so that a refusal's rule id links to its text:
// /rules#R3.3, /rules#T2.3, /rules#E5.3, /rules#N3.
import { meta, problemOf } from './api.js';
import { loadLanguage, ruleTexts, t } from './i18n.js';
import { fill, h, problemBox, ruleText } from './ui.js';

const content = h('div', { class: 'rules' });

/** Rule ids in their natural order: R2 < R2.1 < R2.10 < R3 < T1 < T1.1. */
const order = (id) => id.slice(1).split('.').map(Number);
function compare(a, b) {
  const [x, y] = [order(a), order(b)];
  return a[0].localeCompare(b[0]) || x[0] - y[0] || (x[1] ?? -1) - (y[1] ?? -1);
}

/** @type {[string, string, string][]} */
const PARTS = [['R', 'rules.game', 'rules.game_about'], ['T', 'rules.table', 'rules.table_about'],
  ['E', 'rules.tournament', 'rules.tournament_about'], ['V', 'rules.house', 'rules.house_about'],
  ['N', 'rules.names', 'rules.names_about']];

/** A rule's id (R3.3, N2) is set as a rule, a section's (R3) as a heading: the names' rules
 * (N1-N4) have no sections. */
const isRule = (id) => id.includes('.') || id.startsWith('N');

function part([letter, title, about], ids, rules) {
  const mine = ids.filter((id) => id.startsWith(letter));
  return h('section', { 'aria-labelledby': `part-${letter}` },
    h('h2', { id: `part-${letter}` }, t(title)),
    h('p', {}, t(about)),
    h('dl', {}, mine.map((id) => [
      h('dt', { id, class: isRule(id) ? 'rule-id' : 'section-id' }, h('a', { href: `#${id}` }, id)),
      h('dd', {}, ruleText(rules[id])),
    ])));
}

async function start() {
  document.getElementById('main').replaceChildren(content);
  try {
    const [known] = await Promise.all([meta(), loadLanguage()]);
    const rules = ruleTexts(known.rules);
    const ids = Object.keys(rules).sort(compare);
    fill(content, h('h1', {}, t('shell.rules')),
      h('p', {}, t('rules.about')),
      PARTS.map((p) => part(p, ids, rules)));
    document.getElementById(location.hash.slice(1))?.scrollIntoView();
  } catch (error) {
    fill(content, h('h1', {}, t('shell.rules')), problemBox(problemOf(error), {}));
  }
}

start();
