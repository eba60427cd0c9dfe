// What every page draws the same way: elements, cards, seats, words, problems, rule texts,
// in the page's language (i18n.js). Cards carry data-card, data-seat (whose card it is) and data-deal, so that what a page
// shows can be checked against the log.

/**
 * An element: `h('button', {class: 'x', onclick: f, disabled: true}, 'text', child)`.
 * Attributes with null, undefined or false values are left out; `on…` are listeners.
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith('on')) element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  element.append(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
  return element;
}

/** Replace an element's children, keeping the focus on the element with the same
 * data-key if it is still there (keyboard users do not lose their place on a redraw). */
export function fill(element, ...children) {
  const focused = /** @type {HTMLElement | null | undefined} */ (document.activeElement?.closest?.('[data-key]'))?.dataset.key;
  element.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
  if (focused === undefined || !element.isConnected) return;
  const again = [...element.querySelectorAll('[data-key]')].find((e) => e.dataset.key === focused);
  if (!again || again.disabled) return;
  again.focus();
  if (again.tagName === 'INPUT' && again.type === 'text') again.setSelectionRange(again.value.length, again.value.length);
}

/** Whether a pointer or an activation key (Enter, Space) is pressed on the page (a click
 * under way: Space clicks on its release). */
let pressed = false;
/** @type {Set<() => void>} */
const waiting = new Set();

/** The press is over: the redraws that waited for it, once its click (dispatched with the
 * release, in the same task) has reached the element it began on. */
function released() {
  pressed = false;
  if (waiting.size === 0) return;
  setTimeout(() => {
    const due = [...waiting];
    waiting.clear();
    delete document.body.dataset.held;
    for (const draw of due) draw();
  });
}

/** @param {KeyboardEvent} event */
const activating = (event) => event.key === 'Enter' || event.key === ' ';

addEventListener('pointerdown', () => { pressed = true; }, true);
addEventListener('pointerup', released, true);
addEventListener('pointercancel', released, true);
addEventListener('keydown', (event) => { if (activating(event)) pressed = true; }, true);
addEventListener('keyup', (event) => { if (activating(event)) released(); }, true);
addEventListener('blur', released);

/** A page's redraw: `draw` at once, but while a pointer or an activation key is pressed,
 * after its release. A redraw between press and release (news from the stream) would
 * replace the element being clicked, and the browser would drop the click; the page marks
 * a redraw that waits with `body[data-held]`. */
export function steady(draw) {
  return () => {
    if (!pressed) {
      draw();
      return;
    }
    waiting.add(draw);
    document.body.dataset.held = 'true';
  };
}

import { t, term } from './i18n.js';

const SUITS = { C: '♣', S: '♠', H: '♥', D: '♦' };
const SUIT_CLASSES = { C: 'clubs', S: 'spades', H: 'hearts', D: 'diamonds' };

/** A card code (`QC`, `10H`) as people read it: `Q♣` (`D♣` in German), and `queen of
 * clubs` (`Kreuz-Dame`). */
export function cardNames(code) {
  const rank = code.slice(0, -1);
  const suit = code.slice(-1);
  return {
    rank: t(`rank.${rank}`),
    symbol: SUITS[suit],
    long: t('card.name', { rank: t(`rank_name.${rank}`), suit: t(`suit.${suit}`) }),
    suit: SUIT_CLASSES[suit],
  };
}

/** A card's face as seen (its accessible name is the long one): the deck's picture
 * (vendor/cards, served by the service itself), with rank and suit large in its corner, so
 * that a small card still reads at a glance (in German, `D♣` for the queen). */
function face(code) {
  const names = cardNames(code);
  return h('span', { class: 'face', 'aria-hidden': 'true' },
    h('img', { class: 'picture', src: `/web/vendor/cards/${code}.svg`, alt: '', draggable: 'false' }),
    h('span', { class: 'index' }, h('span', { class: 'rank' }, names.rank), h('span', { class: 'suit' }, names.symbol)));
}

/** The attributes every card element carries. */
function cardData(code, seat, deal) {
  const names = cardNames(code);
  return {
    class: `card ${names.suit}`,
    'data-card': code,
    'data-seat': seat,
    'data-deal': deal,
  };
}

/** A card shown (not played from here); `extra` attributes, its classes added to the card's. */
export function card(code, seat, deal, extra = {}) {
  const names = cardNames(code);
  const data = cardData(code, seat, deal);
  const classes = new Set([...data.class.split(' '), ...(extra.class ?? '').split(' ').filter(Boolean)]);
  return h('span', { ...data, title: names.long, ...extra, class: [...classes].join(' ') },
    face(code), h('span', { class: 'sr' }, names.long));
}

/** A card of one's own hand as a button; `onplay` null: not playable now (disabled). */
export function cardButton(code, seat, deal, key, onplay) {
  const names = cardNames(code);
  return h('button', {
    ...cardData(code, seat, deal),
    type: 'button',
    'data-key': key,
    'aria-label': names.long,
    disabled: !onplay,
    onclick: onplay,
  }, face(code));
}

/** The seat that played the `i`-th card (from 0) of a trick that `leader` led: play goes
 * clockwise from the leader (R3.6), seat `s` followed by `(s + 1) % 4`.
 * @param {number} leader @param {number} i */
export const seatOfCard = (leader, i) => (leader + i) % 4;

/** The card `seat` played in the trick of `cards` that `leader` led (undefined: none yet).
 * @param {string[]} cards @param {number} leader @param {number} seat */
export const cardOfSeat = (cards, leader, seat) => cards.find((_, i) => seatOfCard(leader, i) === seat);

/** Whether a value is there (neither null nor left out). */
export const given = (value) => value !== null && value !== undefined;

/** A seat's name, or `seat N` while it is free. */
export function seatName(seats, seat) {
  return seats?.[seat]?.name ?? t('seat.number', { seat });
}

/** A signed number: +3, −2, 0. */
export const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : '0');

/** Text with `code` spans and *emphasis*, as the rules write codes and words. */
export function ruleText(text) {
  return text.split('`').map((part, i) => (i % 2
    ? h('code', {}, part)
    : part.split(/\*([^*]+)\*/).map((bit, j) => (j % 2 ? h('em', {}, bit) : bit))));
}

/** A rule id linked to the rules page, followed by the rule's text (`full`) or with it as a tooltip. */
/** The house rules a table plays by (its view's or lobby entry's `rules`; none: RULES.md
 * exactly), in words, with a link to the house rules on the rules page; null for none. */
export function houseRules(rules) {
  const chosen = Object.entries(rules ?? {});
  if (!chosen.length) return null;
  const words = chosen.map(([option, value]) => (option === 'second_heart_ten'
    ? `${t('lobby.second_heart_ten')} – ${term('second_heart_ten', value)}`
    : ['without_nines', 'schweinchen', 'armut', 'bock_rounds', 'duty_solo'].includes(option) && value === true ? t(`rules.${option}`)
      : option === 'armut_refused' ? `${t('lobby.armut_refused')} – ${term('armut_refused', value)}` // V4.7, V4.8
      : option === 'session_deals' ? t('rules.session_deals', { count: value })
        : `${option}: ${value}`));
  return h('span', { class: 'house-rules', 'data-rules': JSON.stringify(rules) },
    h('a', { href: '/rules#part-V' }, t('rules.house')), `: ${words.join(', ')}`);
}

export function rule(id, rules, full = true) {
  const text = rules?.[id];
  return h('span', { class: 'rule', 'data-rule': id },
    h('a', { href: `/rules#${id}`, title: full ? null : text }, id),
    full && text ? [' ', h('span', { class: 'rule-text' }, ruleText(text))] : null);
}

/** A catalogue's text with its `{rule}` place filled by the rule `id` as a link (its text as
 * a tooltip): a rule is named by its link, never by an id in brackets. */
export const withRule = (text, id, rules) => text.split('{rule}').map((bit, i) => (i ? [rule(id, rules, false), bit] : bit));

/** A refusal's code in words, from the catalogue: what happened (`problem.<code>`, a clause)
 * and what to do (`remedy.<code>`, a sentence); the service's English `detail` (and the
 * catalogue's general advice) only for a code the catalogue does not know. */
export function refusalWords(problem) {
  const what = t(`problem.${problem.code}`, {}, '');
  if (what) return { what, todo: t(`remedy.${problem.code}`) };
  return { what: problem.detail || problem.title || t('problem.unknown'), todo: t('remedy.unknown') };
}

/** A problem answer in the page's language, from its stable `code`: what happened and what
 * to do, in words (the code and the HTTP status stay in `data-code` and `data-status`, never
 * in the text), and the rule it broke as a link with that rule's text. */
export function problemBox(problem, rules, ondismiss) {
  const { what, todo } = refusalWords(problem);
  return h('div', { class: 'problem', role: 'alert', 'data-code': problem.code, 'data-status': problem.status || null },
    h('p', {}, h('strong', {}, problem.status ? t('problem.refused') : t('problem.no_answer_title')), ': ', `${what}.`),
    h('p', { class: 'remedy' }, todo),
    problem.rule ? h('p', {}, t('problem.rule'), ' ', rule(problem.rule, rules)) : null,
    ondismiss ? h('button', { type: 'button', onclick: ondismiss }, t('problem.dismiss')) : null);
}

/** What a score line (R8, R9) is for, in plain words: the service's reasons (`re under 90`,
 * `no90 announced by kontra`, `fox caught in trick 3` …) in the page's language. */
/** @type {[RegExp, (match: RegExpMatchArray) => string][]} */
const REASONS = [
  [/^(re|kontra) under (\d+)$/, (m) => t('reason.under', { party: term('party', m[1]), points: m[2] })],
  [/^(re|kontra) schwarz \(no trick\)$/, (m) => t('reason.schwarz', { party: term('party', m[1]) })],
  [/^(re|kontra) announced$/, (m) => t('reason.announced', { word: term('word', m[1]) })],
  [/^(\w+) announced by (re|kontra)$/, (m) => t('reason.level', { word: term('word', m[1]), party: term('party', m[2]) })],
  [/^(\d+) against (\w+)$/, (m) => t('reason.against', { points: m[1], word: term('word', m[2]) })],
  [/^against the old ladies$/, () => t('reason.old_ladies')],
  [/^Doppelkopf in trick (\d+)$/, (m) => t('reason.doppelkopf', { trick: m[1] })],
  [/^fox caught in trick (\d+)$/, (m) => t('reason.fox', { trick: m[1] })],
  [/^Karlchen wins the last trick$/, () => t('reason.karlchen')],
  [/^won$/, () => t('reason.won')],
];

export function reasonText(reason) {
  for (const [pattern, text] of REASONS) {
    const match = reason.match(pattern);
    if (match) return text(match);
  }
  return reason;
}

/** Score lines (R8, R9) as a list: points, party, reason, rule id linked to its text. */
export function scoreLines(lines, rules) {
  return h('ul', { class: 'lines' },
    lines.map((line) => h('li', {
      'data-rule': line.rule, 'data-party': line.party, 'data-points': line.points, 'data-reason': line.reason,
    },
      h('span', { class: 'points' }, t('score.points', { count: line.points, party: term('party', line.party) })), ' ',
      reasonText(line.reason), ' ', rule(line.rule, rules, false))));
}

/** Announced words as players say them: `Re`, `keine 90`. */
export const said = (list) => list.map((w) => term('word', w)).join(' + ');

/** Announced words with the party they are for, the party named only when the words do not
 * already say it (`Kontra`, not `Kontra (Kontra)`; `keine 90 (Re)`). */
export const saidFor = (list, party) => (list.includes(party) ? said(list) : `${said(list)} (${term('party', party)})`);

/**
 * A stream event in words, as a list of strings and card elements. `seats` names the
 * players; `deal` is the number of the deal the event belongs to.
 */
export function describe(event, seats, deal) {
  const e = event.data;
  const who = (seat) => seatName(seats, seat);
  switch (event.type) {
    case 'table_created': return [t('event.table_created', { name: e.name })];
    case 'seat_taken':
      return [e.bot ? t('event.bot_taken', { name: e.name, seat: e.seat, kind: term('bot', e.bot) })
        : t('event.seat_taken', { name: e.name, seat: e.seat })];
    case 'session_started': return [t('event.session_started', { dealer: who(e.first_dealer) })];
    case 'deal_dealt': return [e.dealing?.redeal // V4.8: dealt again after an Armut all refused
      ? t('event.deal_dealt_again', { deal: e.deal_no, dealer: who(e.dealer), count: e.dealing.redeal })
      : t('event.deal_dealt', { deal: e.deal_no, dealer: who(e.dealer) })];
    case 'declared': return [t('event.declared', { who: who(e.seat), declaration: term('declaration', e.declaration) })];
    case 'contract_named': // another seat's contract stays hidden (R4.3): that it named one
      return [given(e.contract) ? t('event.contract_named', { who: who(e.seat), contract: term('game', e.contract) })
        : t('event.contract_hidden', { who: who(e.seat) })];
    case 'game_type_fixed':
      return [given(e.declarer) ? t('event.game_by', { game: term('game', e.game_type), declarer: who(e.declarer) })
        : t('event.game', { game: term('game', e.game_type) })];
    case 'card_played': return [t('event.card_played', { who: who(e.seat) }), ' ', card(e.card, e.seat, deal)];
    case 'trick_won': return [t('event.trick_won', { who: who(e.winner), trick: e.trick_no })];
    case 'marriage_clarified':
      return [!given(e.partner) ? t('event.marriage_alone', { trick: e.trick_no })
        : t('event.marriage_partner', { who: who(e.partner), trick: e.trick_no })];
    case 'schweinchen_shown': return [t('event.schweinchen_shown', { who: who(e.seat) })];
    case 'poverty_answered': // V4.3
      return [t(e.accepted ? 'event.poverty_accepted' : 'event.poverty_refused', { who: who(e.seat) })];
    case 'poverty_returned': // V4.6: the cards only to the two of the Armut
      return [t('event.poverty_returned', { who: who(e.seat), count: e.count, trumps: e.trumps }),
        ...(e.cards ?? []).map((c) => [' ', card(c, e.seat, deal)])];
    case 'announced':
      return [t(e.late_reply ? 'event.announced_late' : 'event.announced', {
        who: who(e.seat), words: saidFor(e.words, e.party), count: e.cards,
      })];
    case 'deal_scored':
      return [e.score.winner ? t('event.deal_won', { deal: e.deal_no, party: term('party', e.score.winner), value: signed(e.score.value) })
        : t('event.deal_no_winner', { deal: e.deal_no, value: signed(e.score.value) })];
    case 'session_finished': return [t('event.session_finished', { winners: e.winners.map(who).join(t('list.and')) })];
    case 'seat_left':
      return [t(e.by_host ? 'event.seat_vacated' : 'event.seat_left', { name: e.name, seat: e.seat })];
    case 'turn_timed_out': return [t('event.turn_timed_out', { who: who(e.seat) })];
    case 'seat_away': return [t('event.seat_away', { who: who(e.seat) })];
    case 'seat_back': return [t('event.seat_back', { who: who(e.seat) })];
    case 'table_closed': return [t('event.table_closed')];
    case 'session_abandoned': return [t('event.session_abandoned', { count: e.deals })];
    default: return [term('event', event.type)];
  }
}

/** The seconds left until `deadline` (an ISO date-time, UTC) by the service's clock (this
 * browser's plus `skew`, in ms, from the service's `server_time`), as `0:23`; `0:00` once it
 * has passed. */
export function timeLeft(deadline, skew = 0) {
  const seconds = Math.max(0, Math.ceil((Date.parse(deadline) - Date.now() - skew) / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/** Text of a description (for the live region). */
export const plain = (parts) => parts.map((p) => (typeof p === 'string' ? p : p.title || p.textContent)).join('');
