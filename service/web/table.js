// The table page: a seat's page when this tab holds that seat's token, else a spectator's
// (at a private table, with the host token or the invitation code this tab holds: an
// invitation link brings the code in its fragment, T1.1). The host also gets the host's
// controls: bots, vacating, the invitation link, closing and abandoning (T2, T4).
// State = the last view the server sent + the stream's events since (table/store.js, kept in
// step by table/sync.js); everything drawn comes from that state, one module of table/ per
// part of the page, which this module only puts together. What may be played or said now is
// the view's `options`, whose turn runs until when is its `clock` (counted down by the
// service's time, the `server_time` of views and events), which life actions (leave, come
// back; the host's vacate, close, abandon, new invitation) are allowed or why not its
// `actions`: the page decides no rule, and the server referees every click.
import { meta, takeInvitation } from './api.js';
import { seatOf, takeRejoin } from './rejoin.js';
import { loadLanguage, ruleTexts, t } from './i18n.js';
import { fill, given, h, problemBox, timeLeft } from './ui.js';
import { announcements } from './table/announcements.js';
import { board } from './table/board.js';
import { device } from './table/device.js';
import { door } from './table/door.js';
import { hand } from './table/hand.js';
import { heading } from './table/heading.js';
import { hosting } from './table/host.js';
import { logSection } from './table/log.js';
import { moves } from './table/moves.js';
import { panels, showParts, talkSlot } from './table/panels.js';
import { resultDialog, showResult } from './table/result.js';
import { seating } from './table/seats.js';
import { settings, settingsSection } from './table/settings.js';
import { beep } from './table/sound.js';
import { sheetSection } from './table/sheet.js';
import { loadTalk, talkPart } from './table/talk.js';
import { showStandings, standingsDialog } from './table/standings.js';
import { keep, recall, running, seated, state, subscribe, table, update } from './table/store.js';
import { accept, connect, fetchView, forgetSeat, loadSheet, seatGone } from './table/sync.js';

takeInvitation(table);
takeRejoin(table);
recall();
const content = h('div', { class: 'table-page' });
const live = h('p', { id: 'live', class: 'live', 'aria-live': 'polite' });

/** The view's deal as the page offers it: once the session is over (closed, abandoned,
 * finished: T4, R1.3) nothing is offered and nobody is to play, whatever the deal left open. */
function offered(view) {
  const deal = view.deal;
  if (!deal || running(view)) return deal;
  return { ...deal, turn: null, options: { cards: [], declarations: [], contracts: [], announcements: [] } };
}

function render() {
  const view = state.view;
  if (!view) return;
  const deal = offered(view);
  document.title = `${view.name || t('table.unnamed')} · doko`;
  document.body.dataset.version = String(state.latest);
  document.body.dataset.problems = String(state.problems);
  document.body.dataset.seated = String(seated());
  const more = [deal ? seating(view) : null, hosting(view), device(), deal ? announcements(view, deal) : null,
    sheetSection(view), logSection(view), deal ? settingsSection() : null].filter(Boolean);
  // with the board there, the rest of the table is in dialogs; before it, on the page
  showParts(deal ? more : []);
  fill(talkSlot, talkPart(view));
  fill(content,
    heading(view, more.map((part) => part.id), Boolean(deal)),
    state.problem ? problemBox(state.problem, state.rules, () => update({ problem: null })) : null,
    deal ? null : seating(view),
    deal ? h('div', { class: 'play' }, board(view, deal), seated() ? moves(view, deal) : null,
      seated() ? hand(deal) : null) : null,
    talkSlot,
    deal ? null : h('div', { class: 'more' }, more));
  showResult(view);
  showStandings(view);
  const yourTurn = Boolean(seated() && deal && (deal.options.cards.length || deal.options.declarations.length || deal.options.contracts.length));
  if (yourTurn && !state.turnHeard && settings.sound) beep();
  state.turnHeard = yourTurn;
  const text = [...state.spoken, yourTurn ? t('live.your_turn') : ''].filter(Boolean).join('. ');
  if (live.textContent !== text) live.textContent = text;
  if (document.activeElement === document.body && state.handFocused) document.getElementById('hand')?.focus();
}

subscribe(render);

document.addEventListener('focusin', (e) => {
  state.handFocused = Boolean(/** @type {Element} */ (e.target).closest?.('#hand'));
});

/** The running turn's time left, counted down between views. */
setInterval(() => {
  for (const element of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[data-deadline]'))) {
    const left = timeLeft(element.dataset.deadline, state.skew);
    if (element.textContent !== left) element.textContent = left;
  }
}, 250);

async function start() {
  const main = document.getElementById('main');
  main.replaceChildren(content, live, panels, resultDialog, standingsDialog);
  try {
    const [known] = await Promise.all([meta(), loadLanguage()]);
    state.rules = ruleTexts(known.rules);
    state.types = known.events;
    if (seated() && !given(state.mine.seat)) { // a rejoin link brought the token alone
      const seat = await seatOf(table, state.mine.token);
      keep(given(seat) ? { seat } : { seat: null, token: null });
    }
    try {
      const answer = await fetchView();
      accept(answer.version, answer.data);
    } catch (error) {
      if (!seatGone(error)) throw error;
      forgetSeat(); // a token this table does not know (any more): watch instead
      const answer = await fetchView();
      accept(answer.version, answer.data);
    }
  } catch (error) {
    fill(content, door(error));
    return;
  }
  connect();
  loadSheet();
  loadTalk();
}

start();
