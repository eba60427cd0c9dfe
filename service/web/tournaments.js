// A new tournament: its name, the number of rounds, public or private, a turn clock for its
// tables and the standings method (E1.1), as the API's `createTournament` takes them (the
// bounds, the defaults and the methods are the document's). The director's host token and a
// private tournament's invitation code, shown once, are kept on this device; then the
// tournament's page. Below, the tournaments this device keeps something for.
import { call, meta, problemOf, schema } from './api.js';
import { forgetTournament, heldTournament, heldTournaments, holdTournament, tournamentPass } from './tournament_parts.js';
import { loadLanguage, ruleTexts, t, term } from './i18n.js';
import { fill, h, problemBox, rule } from './ui.js';

const content = h('div', { class: 'tournaments' });
const problemArea = h('div');
const mineArea = h('div');
const state = { busy: false, rules: {} };

/** A number field with the bounds and default of the request's property `name`. */
function numberField(request, name, label, { optional = false } = {}) {
  const property = request.properties[name];
  const shape = property.oneOf?.find((p) => p.type !== 'null') ?? property;
  return h('p', {}, h('label', { for: name }, label, ` (${shape.minimum}–${shape.maximum})`),
    h('input', {
      id: name, name, type: 'number', min: shape.minimum, max: shape.maximum, value: optional ? null : property.default,
      required: !optional, placeholder: optional ? t('lobby.none') : null,
    }));
}

function choice(name, label, values, chosen, family) {
  return h('p', {}, h('label', { for: name }, label),
    h('select', { id: name, name }, values.map((v) => h('option', { value: v, selected: v === chosen }, term(family, v)))));
}

async function create(form) {
  if (state.busy) return;
  state.busy = true;
  try {
    const clock = form.elements.turn_seconds.value;
    const created = (await call('POST', '/tournaments', {
      body: {
        name: form.elements.name.value.trim(),
        rounds: Number(form.elements.rounds.value),
        visibility: form.elements.visibility.value,
        method: form.elements.method.value,
        ...(clock ? { turn_seconds: Number(clock) } : {}),
      },
    })).data;
    holdTournament(created.tournament_id, { host: created.host_token, invitation: created.invitation ?? null });
    location.assign(`/tournament/${encodeURIComponent(created.tournament_id)}`);
  } catch (error) {
    fill(problemArea, problemBox(problemOf(error), state.rules));
  } finally {
    state.busy = false;
  }
}

/** The tournaments this device keeps a credential for, by their names (asked with it). */
async function mine() {
  const found = await Promise.all(heldTournaments().map(async (tournament) => {
    const held = heldTournament(tournament);
    try {
      const view = (await call('GET', '/tournaments/{tournament_id}', {
        params: { path: { tournament_id: tournament } }, token: tournamentPass(held),
      })).data.tournament;
      return { tournament, held, view };
    } catch (error) {
      return { tournament, held, problem: problemOf(error) };
    }
  }));
  fill(mineArea, found.length ? h('section', { class: 'panel', id: 'my-tournaments', 'aria-labelledby': 'my-tournaments-h' },
    h('h2', { id: 'my-tournaments-h' }, t('tournaments.mine')),
    h('ul', { class: 'tables' }, found.map(({ tournament, held, view, problem }) => h('li', { 'data-my-tournament': tournament },
      h('p', {}, h('strong', {}, view?.name ?? tournament), ' · ', view ? term('tournament_status', view.status) : t('mine.gone', { code: problem.code }),
        h('small', {}, ` · ${t(held.host ? 'mine.host' : held.token ? 'tournaments.player' : 'tournaments.invited')}`)),
      view ? h('a', { class: 'go', href: `/tournament/${encodeURIComponent(tournament)}`, 'aria-label': t('mine.back_to', { name: view.name }) }, t('tournaments.open'))
        : h('button', {
          type: 'button',
          onclick: () => {
            forgetTournament(tournament);
            mine();
          },
        }, t('mine.forget')))))) : null);
}

async function start() {
  document.getElementById('main').replaceChildren(content);
  try {
    const [spec, known] = await Promise.all([schema(), meta(), loadLanguage()]);
    state.rules = ruleTexts(known.rules);
    const request = spec.components.schemas.CreateTournamentRequest;
    const methods = spec.components.schemas.StandingsMethod.enum;
    const visibility = spec.components.schemas.Visibility.enum;
    fill(content, h('h1', {}, t('tournaments.heading')), problemArea,
      h('section', { class: 'panel', 'aria-labelledby': 'new-tournament-h' },
        h('h2', { id: 'new-tournament-h' }, t('tournaments.new')),
        h('p', {}, t('tournaments.about'), ' ', rule('E1.1', state.rules, false)),
        h('form', {
          id: 'create-tournament',
          onsubmit: (e) => {
            e.preventDefault();
            create(e.target);
          },
        },
        h('p', {}, h('label', { for: 'name' }, t('tournaments.name')),
          h('input', { id: 'name', name: 'name', required: true, maxlength: 100, placeholder: t('tournaments.name_example') })),
        numberField(request, 'rounds', t('tournaments.rounds')),
        choice('visibility', t('lobby.visibility'), visibility, request.properties.visibility.default, 'visibility'),
        numberField(request, 'turn_seconds', t('lobby.turn_seconds'), { optional: true }),
        choice('method', t('tournaments.method'), methods, request.properties.method.default, 'method'),
        h('p', { class: 'small' }, t('tournaments.methods'), ' ', rule('E6', state.rules, false)),
        h('p', {}, h('button', { type: 'submit', 'data-key': 'create-tournament' }, t('tournaments.create'))))),
      mineArea);
    await mine();
  } catch (error) {
    fill(content, h('h1', {}, t('tournaments.heading')), problemBox(problemOf(error), state.rules));
  }
}

start();
