// The rules the service enforces, by id (from the package's copy of RULES.md), so that a
// refusal's rule id links to its text: /rules#R3.3.
import { meta } from './api.js';
import { fill, h, problemBox, problemOf, ruleText } from './ui.js';

const content = h('div', { class: 'rules' });

/** Rule ids in their natural order: R2 < R2.1 < R2.10 < R3. */
const order = (id) => id.slice(1).split('.').map(Number);
function compare(a, b) {
  const [x, y] = [order(a), order(b)];
  return x[0] - y[0] || (x[1] ?? -1) - (y[1] ?? -1);
}

async function start() {
  document.getElementById('main').replaceChildren(content);
  try {
    const { rules } = await meta();
    const ids = Object.keys(rules).sort(compare);
    fill(content, h('h1', {}, 'Rules'),
      h('p', {}, 'DDV tournament rules with the house choices of doko. Every refusal names the rule it broke.'),
      h('dl', {}, ids.map((id) => [
        h('dt', { id, class: id.includes('.') ? 'rule-id' : 'section-id' }, h('a', { href: `#${id}` }, id)),
        h('dd', {}, ruleText(rules[id])),
      ])));
    document.getElementById(location.hash.slice(1))?.scrollIntoView();
  } catch (error) {
    fill(content, h('h1', {}, 'Rules'), problemBox(problemOf(error), {}));
  }
}

start();
