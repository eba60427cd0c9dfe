// The lobby: open a table (with bots for the empty seats) and sit down at it, or go to a
// table by its link or id. The form offers what the API's schema offers: the table options
// of `createTable` and the kinds of bot, so a field the API gains shows up here by itself.
import { call, hold, schema } from './api.js';
import { fill, h, problemBox, problemOf, words } from './ui.js';

const content = h('div', { class: 'lobby' });
const state = { problem: null, busy: false, options: [], kinds: [], tables: null, rules: {} };

/** The simple options of a new table that the API takes (`CreateTableRequest`): each scalar
 * property but the name, as {name, type, values, minimum, maximum, description}. */
function tableOptions(spec) {
  const request = spec.components.schemas.CreateTableRequest.properties;
  return Object.entries(request).flatMap(([name, property]) => {
    const shape = property.oneOf?.find((p) => p.type !== 'null') ?? property;
    const resolved = shape.$ref ? spec.components.schemas[shape.$ref.split('/').at(-1)] : shape;
    const values = resolved.enum ?? property.enum;
    const type = values ? 'choice' : resolved.type;
    if (name === 'name' || !['choice', 'integer', 'boolean'].includes(type)) return [];
    return [{
      name, type, values, description: property.description ?? resolved.description,
      minimum: property.minimum ?? resolved.minimum, maximum: property.maximum ?? resolved.maximum,
      nullable: Boolean(property.oneOf?.some((p) => p.type === 'null')),
    }];
  });
}

function optionField(option) {
  const id = `option-${option.name}`;
  const label = h('label', { for: id }, words(option.name), option.description ? h('small', {}, ` ${option.description}`) : null);
  if (option.type === 'boolean') return h('p', {}, h('input', { type: 'checkbox', id, name: option.name }), ' ', label);
  if (option.type === 'choice') {
    return h('p', {}, label, h('select', { id, name: option.name },
      option.nullable ? h('option', { value: '' }, 'default') : null,
      option.values.map((value) => h('option', { value }, words(value)))));
  }
  return h('p', {}, label, h('input', {
    type: 'number', id, name: option.name, min: option.minimum, max: option.maximum,
    placeholder: option.nullable ? 'default' : null, required: !option.nullable,
  }));
}

/** The chosen table options, each only when set: the API's defaults stand otherwise. */
function chosenOptions(form) {
  const body = {};
  for (const option of state.options) {
    const field = form.elements[option.name];
    if (option.type === 'boolean') body[option.name] = field.checked;
    else if (field.value !== '') body[option.name] = option.type === 'integer' ? Number(field.value) : field.value;
  }
  return body;
}

/** Open the table, sit down, seat the bots; then go to the table. */
async function create(form) {
  if (state.busy) return;
  state.busy = true;
  try {
    const created = (await call('POST', '/tables', {
      body: { name: form.elements.table.value.trim(), ...chosenOptions(form) },
    })).data;
    const table = created.table_id;
    hold(table, { host: created.host_token });
    const path = `/tables/${encodeURIComponent(table)}`;
    const taken = (await call('POST', `${path}/seats`, { body: { name: form.elements.player.value.trim() } })).data;
    hold(table, { seat: taken.seat, token: taken.token });
    for (let i = 0; i < Number(form.elements.bots.value); i += 1) {
      await call('POST', `${path}/bots`, { token: created.host_token, body: { kind: form.elements.kind.value, name: `Bot ${i + 1}` } });
    }
    location.assign(`/t/${encodeURIComponent(table)}`);
  } catch (error) {
    state.problem = problemOf(error);
    render();
  } finally {
    state.busy = false;
  }
}

/** A table id from what was pasted: the id itself, or a link to the table. */
function tableId(text) {
  const link = text.trim().match(/\/t\/([^/?#]+)/);
  return link ? decodeURIComponent(link[1]) : text.trim();
}

/** The open public tables, when the API lists them (`GET /tables` in its schema); null otherwise. */
async function openTables(spec) {
  if (!spec.paths['/tables']?.get) return null;
  const answer = (await call('GET', '/tables')).data;
  return Array.isArray(answer) ? answer : answer.tables ?? answer.items ?? [];
}

function tableList() {
  if (state.tables === null) return null;
  return h('section', { class: 'panel', 'aria-labelledby': 'open-h' },
    h('h2', { id: 'open-h' }, 'Open tables'),
    state.tables.length
      ? h('ul', {}, state.tables.map((t) => {
        const id = t.table_id ?? t.id;
        return h('li', {}, h('a', { href: `/t/${encodeURIComponent(id)}` }, t.name || id), t.status ? ` (${words(t.status)})` : '');
      }))
      : h('p', {}, 'No open table right now: open one.'));
}

const problemArea = h('div');
const listArea = h('div');

/** Only the problem and the list are drawn again: what was typed in the forms stays. */
function render() {
  fill(problemArea, state.problem ? problemBox(state.problem, state.rules, () => {
    state.problem = null;
    render();
  }) : null);
  fill(listArea, tableList());
}

function forms() {
  return [
    h('section', { class: 'panel', 'aria-labelledby': 'new-h' },
      h('h2', { id: 'new-h' }, 'Open a table'),
      h('form', {
        id: 'create',
        onsubmit: (e) => {
          e.preventDefault();
          create(e.target);
        },
      },
      h('p', {}, h('label', { for: 'table' }, 'Table name'), h('input', { id: 'table', name: 'table', maxlength: 100, placeholder: 'Friday' })),
      h('p', {}, h('label', { for: 'player' }, 'Your name'), h('input', { id: 'player', name: 'player', required: true, maxlength: 40, autocomplete: 'nickname' })),
      h('p', {}, h('label', { for: 'bots' }, 'Bots for the other seats'),
        h('select', { id: 'bots', name: 'bots' }, [3, 2, 1, 0].map((n) => h('option', { value: n }, `${n}`)))),
      h('p', {}, h('label', { for: 'kind' }, 'Kind of bot'),
        h('select', { id: 'kind', name: 'kind' }, state.kinds.map((kind) => h('option', { value: kind }, kind)))),
      state.options.length ? h('fieldset', {}, h('legend', {}, 'Table options'), state.options.map(optionField)) : null,
      h('p', {}, h('button', { type: 'submit', id: 'create-button' }, 'Open the table and sit down')))),
    h('section', { class: 'panel', 'aria-labelledby': 'join-h' },
      h('h2', { id: 'join-h' }, 'Go to a table'),
      h('form', {
        id: 'join',
        onsubmit: (e) => {
          e.preventDefault();
          const id = tableId(e.target.elements.where.value);
          if (id) location.assign(`/t/${encodeURIComponent(id)}`);
        },
      },
      h('p', {}, h('label', { for: 'where' }, 'Link or table id'), h('input', { id: 'where', name: 'where', required: true })),
      h('p', {}, h('button', { type: 'submit' }, 'Go: sit down or watch')))),
  ];
}

async function start() {
  document.getElementById('main').replaceChildren(content);
  content.append(h('h1', {}, 'Doppelkopf'), problemArea);
  try {
    const spec = await schema();
    state.options = tableOptions(spec);
    state.kinds = spec.components.schemas.BotKind.enum;
    content.append(...forms(), listArea);
    state.tables = await openTables(spec);
  } catch (error) {
    state.problem = problemOf(error);
  }
  render();
}

start();
