// The lobby: the public tables (`GET /tables`, by status, page by page), a table to open
// (public or private, with a turn clock and bots for the empty seats) and sit down at, or a
// table to go to by its link, an invitation link included. The form offers what the API's
// schema offers: the table options of `createTable` and the kinds of bot, so a field the
// API gains shows up here by itself. "My tables" are the tables this browser holds a seat
// or the host role at (api.js `held`), whatever their status.
import { call, forget, held, heldTables, hold, meta, problemOf, schema } from './api.js';
import { loadLanguage, ruleTexts, t, term } from './i18n.js';
import { rememberName, rememberedName } from './name.js';
import { fill, given, h, houseRules, problemBox, steady } from './ui.js';

const PAGE_SIZE = 20;
const content = h('div', { class: 'lobby' });
const state = {
  problem: null, busy: false, options: [], kinds: [], statuses: [], rules: {},
  listed: false, // whether the API lists tables (`GET /tables` in its schema)
  status: /** @type {import('./api.js').Schemas['TableStatus'] | ''} */ ('open'), // the lobby's filter: a table status, or '' for every listed one
  before: null, // the page shown: null for the newest, else the `next` of the page before
  page: null, // the LobbyPage shown
  mine: [], // this browser's tables: {table, held, view} or {table, held, problem}
};

/** How the lobby says the options it knows (label, hint, and what an empty field means); an
 * option the API gains later is shown with its name and its schema's description. */
const LABELS = {
  visibility: ['lobby.visibility', 'lobby.visibility_about'],
  turn_seconds: ['lobby.turn_seconds', 'lobby.turn_seconds_about'],
  first_dealer: ['lobby.first_dealer', 'lobby.first_dealer_about', 'lobby.first_dealer_empty'],
  without_nines: ['lobby.without_nines', 'lobby.without_nines_about'],
  second_heart_ten: ['lobby.second_heart_ten', 'lobby.second_heart_ten_about'],
  schweinchen: ['lobby.schweinchen', 'lobby.schweinchen_about'],
  armut: ['lobby.armut', 'lobby.armut_about'],
  armut_refused: ['lobby.armut_refused', 'lobby.armut_refused_about'],
  bock_rounds: ['lobby.bock_rounds', 'lobby.bock_rounds_about'],
  session_deals: ['lobby.session_deals', 'lobby.session_deals_about'],
  duty_solo: ['lobby.duty_solo', 'lobby.duty_solo_about'],
};

/** The simple options of a new table that the API takes (`CreateTableRequest`): each scalar
 * property but the name, as {name, type, values, default, minimum, maximum, description,
 * within}; the options of an object property (the house rules, `rules`) each on its own,
 * `within` that property. */
function tableOptions(spec, properties = spec.components.schemas.CreateTableRequest.properties, within = null) {
  return Object.entries(properties).flatMap(([name, property]) => {
    const shape = property.oneOf?.find((p) => p.type !== 'null') ?? property.allOf?.[0] ?? property;
    const resolved = shape.$ref ? spec.components.schemas[shape.$ref.split('/').at(-1)] : shape;
    if (!within && resolved.type === 'object' && resolved.properties) return tableOptions(spec, resolved.properties, name);
    const values = resolved.enum ?? property.enum;
    const type = values ? 'choice' : resolved.type;
    if (name === 'name' || !['choice', 'integer', 'boolean'].includes(type)) return [];
    return [{
      name, type, values, default: property.default ?? resolved.default, within,
      description: property.description ?? resolved.description,
      minimum: property.minimum ?? resolved.minimum, maximum: property.maximum ?? resolved.maximum,
      step: property.multipleOf ?? resolved.multipleOf,
      nullable: Boolean(property.oneOf?.some((p) => p.type === 'null')),
    }];
  });
}

function optionField(option) {
  const id = `option-${option.name}`;
  const known = LABELS[option.name];
  const [label, about, empty = t('lobby.none')] = known ? known.map((key) => t(key)) : [term('option', option.name), option.description];
  const range = given(option.minimum) && given(option.maximum) ? ` (${option.minimum}–${option.maximum})` : '';
  const hint = `${id}-hint`;
  const labelled = h('label', { for: id }, label, range);
  const note = about ? h('small', { id: hint, class: 'hint' }, about) : null;
  const described = about ? hint : null;
  if (option.type === 'boolean') {
    return h('p', {}, h('input', { type: 'checkbox', id, name: option.name, 'aria-describedby': described }), ' ', labelled, note);
  }
  if (option.type === 'choice') {
    return h('p', {}, labelled, note, h('select', { id, name: option.name, 'aria-describedby': described },
      option.nullable ? h('option', { value: '' }, t('lobby.default')) : null,
      option.values.map((value) => h('option', { value, selected: value === option.default }, term(option.name, value)))));
  }
  return h('p', {}, labelled, note, h('input', {
    type: 'number', id, name: option.name, min: option.minimum, max: option.maximum, step: option.step,
    value: option.nullable ? null : option.default, // a required number starts at the API's default
    placeholder: option.nullable ? empty : null, required: !option.nullable, 'aria-describedby': described,
  }));
}

/** The chosen table options, each only when set: the API's defaults stand otherwise (an
 * option `within` an object, such as a house rule, goes into that object). */
function chosenOptions(form) {
  const body = {};
  for (const option of state.options) {
    const field = form.elements[option.name];
    const into = option.within ? (body[option.within] ??= {}) : body;
    if (option.type === 'boolean') into[option.name] = field.checked;
    else if (field.value !== '') into[option.name] = option.type === 'integer' ? Number(field.value) : field.value;
  }
  return body;
}

/** Open the table (the host token and a private table's invitation code, shown once, are
 * kept in this tab), sit down with the invitation, seat the bots; then go to the table. */
async function create(form) {
  if (state.busy) return;
  state.busy = true;
  try {
    const created = (await call('POST', '/tables', {
      body: { name: form.elements.table.value.trim(), ...chosenOptions(form) },
    })).data;
    const table = created.table_id;
    hold(table, { host: created.host_token, invitation: created.invitation ?? null });
    const at = { path: { table_id: table } };
    const taken = (await call('POST', '/tables/{table_id}/seats', {
      params: at,
      body: { name: rememberName(form.elements.player.value.trim()), invitation: created.invitation ?? undefined },
    })).data;
    hold(table, { seat: taken.seat, token: taken.token });
    for (let i = 0; i < Number(form.elements.bots.value); i += 1) {
      await call('POST', '/tables/{table_id}/bots', { params: at, token: created.host_token, body: { kind: form.elements.kind.value, name: `Bot ${i + 1}` } });
    }
    location.assign(`/t/${encodeURIComponent(table)}`);
  } catch (error) {
    state.problem = problemOf(error);
    render();
  } finally {
    state.busy = false;
  }
}

/** Where a pasted link or id leads: the table page, with what a link carries in its
 * fragment (an invitation, a personal link's tokens) kept there (never sent to the service). */
function destination(text) {
  const link = text.trim().match(/\/t\/([^/?#\s]+)/);
  const table = link ? decodeURIComponent(link[1]) : text.trim();
  const fragment = link && text.includes('#') ? text.trim().slice(text.trim().indexOf('#')) : '';
  return `/t/${encodeURIComponent(table)}${fragment}`;
}

/** Show a page of the lobby: the newest (`before` null) or the one after `before`. */
async function list(before = null) {
  try {
    const answer = await call('GET', '/tables', {
      params: { query: { status: state.status ? [state.status] : undefined, before: before ?? undefined, limit: PAGE_SIZE } },
    });
    state.page = answer.data;
    state.before = before;
  } catch (error) {
    state.problem = problemOf(error);
  }
  render();
}

function seatsText(table) {
  return table.seats.map((seat) => (given(seat.name)
    ? `${seat.name}${seat.bot ? ` (${term('bot', seat.bot)})` : ''}${seat.status === 'away' ? ` (${term('seat_status', 'away')})` : ''}`
    : term('seat_status', seat.status))).join(', ');
}

function tableEntry(table) {
  const open = table.seats.some((seat) => !given(seat.name)) && ['open', 'playing'].includes(table.status);
  const clock = table.options.turn_seconds ? ` · ${t('facts.clock', { seconds: table.options.turn_seconds })}` : '';
  const deal = table.status === 'playing' ? ` · ${t('lobby.deal', { deal: table.deal, deals: table.deals })}` : '';
  const name = table.name || t('lobby.unnamed', { id: table.table_id.slice(0, 8) });
  const href = `/t/${encodeURIComponent(table.table_id)}`;
  return h('li', { 'data-table': table.table_id, 'data-status': table.status },
    h('p', {}, h('strong', {}, name), ` · ${term('table_status', table.status)}${deal}${clock}`,
      houseRules(table.options.rules) ? [' · ', houseRules(table.options.rules)] : null, h('br'),
      h('small', {}, t('lobby.seats', { seats: seatsText(table) }))),
    h('a', { class: 'go', href, 'aria-label': t(open ? 'lobby.sit_at' : 'lobby.watch_at', { name }) }, t(open ? 'lobby.sit' : 'lobby.watch')));
}

function tableList() {
  if (!state.listed) return null;
  const page = state.page;
  return h('section', { class: 'panel', id: 'tables', 'aria-labelledby': 'open-h' },
    h('h2', { id: 'open-h' }, t('lobby.public')),
    h('form', {
      class: 'filter',
      onsubmit: (e) => {
        e.preventDefault();
        state.status = e.target.elements.status.value;
        list();
      },
    },
    h('label', { for: 'status-filter' }, t('lobby.show')),
    h('select', { id: 'status-filter', name: 'status', 'data-key': 'status-filter' },
      state.statuses.map((s) => h('option', { value: s, selected: s === state.status }, s ? term('table_status', s) : t('lobby.every_status')))),
    h('button', { type: 'submit', 'data-key': 'list' }, t('lobby.show_tables'))),
    !page ? h('p', {}, t('shell.loading'))
      : page.tables.length ? h('ul', { class: 'tables' }, page.tables.map(tableEntry))
        : h('p', {}, t(state.status === 'open' ? 'lobby.no_open' : 'lobby.no_table')),
    page && (page.next !== null || state.before !== null) ? h('p', { class: 'pages' },
      state.before !== null ? h('button', { type: 'button', 'data-key': 'newest', onclick: () => list() }, t('lobby.newest')) : null,
      page.next !== null ? h('button', { type: 'button', 'data-key': 'older', onclick: () => list(page.next) }, t('lobby.older')) : null) : null);
}

/** The tables this browser holds something for, each as its view shows it (with the
 * credential held: a private table's too). */
async function loadMine() {
  state.mine = await Promise.all(heldTables().map(async (table) => {
    const mine = held(table);
    try {
      const answer = await call('GET', '/tables/{table_id}', { params: { path: { table_id: table } }, token: mine.host ?? mine.invitation ?? mine.token });
      return { table, held: mine, view: answer.data };
    } catch (error) {
      return { table, held: mine, problem: problemOf(error) };
    }
  }));
}

function myEntry({ table, held: mine, view, problem }) {
  const name = view?.name || t('lobby.unnamed', { id: table.slice(0, 8) });
  const roles = [given(mine.seat) ? t('mine.seat', { seat: mine.seat }) : null, mine.host ? t('mine.host') : null].filter(Boolean);
  return h('li', { 'data-my-table': table, 'data-status': view?.status ?? problem.code },
    h('p', {}, h('strong', {}, name), view ? ` · ${term('table_status', view.status)}` : ` · ${t('mine.gone', { code: problem.code })}`,
      roles.length ? h('small', {}, ` · ${roles.join(', ')}`) : null),
    view ? h('a', { class: 'go', href: `/t/${encodeURIComponent(table)}`, 'aria-label': t('mine.back_to', { name }) }, t('mine.back'))
      : h('button', {
        type: 'button', 'data-key': `forget-${table}`,
        onclick: async () => {
          forget(table);
          await loadMine();
          render();
        },
      }, t('mine.forget')));
}

function myTables() {
  if (!state.mine.length) return null;
  return h('section', { class: 'panel', id: 'my-tables', 'aria-labelledby': 'mine-h' },
    h('h2', { id: 'mine-h' }, t('mine.title')),
    h('p', { class: 'small' }, t('mine.about')),
    h('ul', { class: 'tables' }, state.mine.map(myEntry)));
}

const problemArea = h('div');
const mineArea = h('div');
const listArea = h('div');

/** Only the problem and the list are drawn again: what was typed in the forms stays. */
function draw() {
  fill(problemArea, state.problem ? problemBox(state.problem, state.rules, () => {
    state.problem = null;
    render();
  }) : null);
  fill(mineArea, myTables());
  fill(listArea, tableList());
}

/** Draw again, not while a click is under way (ui.js `steady`). */
const render = steady(draw);

function forms() {
  return [
    h('section', { class: 'panel', 'aria-labelledby': 'new-h' },
      h('h2', { id: 'new-h' }, t('lobby.open')),
      h('form', {
        id: 'create',
        onsubmit: (e) => {
          e.preventDefault();
          create(e.target);
        },
      },
      h('p', {}, h('label', { for: 'table' }, t('lobby.table_name')), h('input', { id: 'table', name: 'table', maxlength: 100, placeholder: t('lobby.table_example') })),
      h('p', {}, h('label', { for: 'player' }, t('seats.your_name')), h('input', { id: 'player', name: 'player', required: true, maxlength: 40, autocomplete: 'nickname', value: rememberedName() })),
      h('p', {}, h('label', { for: 'bots' }, t('lobby.bots')),
        h('select', { id: 'bots', name: 'bots' }, [3, 2, 1, 0].map((n) => h('option', { value: n }, `${n}`)))),
      // the kinds in the API's order, weakest first: the strongest is the default
      h('p', {}, h('label', { for: 'kind' }, t('lobby.kind')),
        h('select', { id: 'kind', name: 'kind' }, state.kinds.map((kind) => h('option', { value: kind, selected: kind === state.kinds.at(-1) }, term('bot', kind))))),
      state.options.length ? h('fieldset', {}, h('legend', {}, t('lobby.options')), state.options.map(optionField)) : null,
      h('p', {}, h('button', { type: 'submit', id: 'create-button' }, t('lobby.create'))))),
    h('section', { class: 'panel', 'aria-labelledby': 'join-h' },
      h('h2', { id: 'join-h' }, t('lobby.go')),
      h('form', {
        id: 'join',
        onsubmit: (e) => {
          e.preventDefault();
          if (e.target.elements.where.value.trim()) location.assign(destination(e.target.elements.where.value));
        },
      },
      h('p', {}, h('label', { for: 'where' }, t('lobby.where')), h('input', { id: 'where', name: 'where', required: true })),
      h('p', {}, h('button', { type: 'submit' }, t('lobby.go_button'))))),
  ];
}

async function start() {
  document.getElementById('main').replaceChildren(content);
  content.append(h('h1', {}, 'Doppelkopf'), problemArea, mineArea);
  try {
    const [spec, known] = await Promise.all([schema(), meta(), loadLanguage()]);
    state.rules = ruleTexts(known.rules);
    state.options = tableOptions(spec);
    state.kinds = spec.components.schemas.BotKind.enum;
    // every status the lobby lists: a closed table has left it (T4.1)
    state.statuses = [...spec.components.schemas.TableStatus.enum.filter((s) => s !== 'closed'), ''];
    state.listed = Boolean(spec.paths['/tables']?.get);
    content.append(...forms(), listArea);
    await loadMine();
    if (state.listed) await list();
  } catch (error) {
    state.problem = problemOf(error);
  }
  render();
}

start();
