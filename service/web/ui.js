// What every page draws the same way: elements, cards, seats, words, problems, rule texts.
// Cards carry data-card, data-seat (whose card it is) and data-deal, so that what a page
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
  const focused = document.activeElement?.closest?.('[data-key]')?.dataset.key;
  element.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
  if (focused === undefined || !element.isConnected) return;
  const again = [...element.querySelectorAll('[data-key]')].find((e) => e.dataset.key === focused);
  if (!again || again.disabled) return;
  again.focus();
  if (again.tagName === 'INPUT' && again.type === 'text') again.setSelectionRange(again.value.length, again.value.length);
}

const SUITS = {
  C: ['♣', 'clubs'],
  S: ['♠', 'spades'],
  H: ['♥', 'hearts'],
  D: ['♦', 'diamonds'],
};
const RANKS = { A: 'ace', 10: 'ten', K: 'king', Q: 'queen', J: 'jack', 9: 'nine' };

/** A card code (`QC`, `10H`) as people read it: `Q♣`, and `queen of clubs`. */
export function cardNames(code) {
  const rank = code.slice(0, -1);
  const [symbol, suit] = SUITS[code.slice(-1)];
  return { short: `${rank}${symbol}`, long: `${RANKS[rank]} of ${suit}`, suit: suit };
}

/** A card's face as seen (its accessible name is the long one): rank and suit in the corner,
 * the suit in the middle. */
function face(code) {
  const { short } = cardNames(code);
  return h('span', { class: 'face', 'aria-hidden': 'true' },
    h('span', { class: 'rank' }, short.slice(0, -1)), h('span', { class: 'suit' }, short.slice(-1)));
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

/** Whether a value is there (neither null nor left out). */
export const given = (value) => value !== null && value !== undefined;

/** A seat's name, or `seat N` while it is free. */
export function seatName(seats, seat) {
  return seats?.[seat]?.name ?? `seat ${seat}`;
}

/** An enum value as words: `queen_solo` → `queen solo`. */
export const words = (value) => String(value).replaceAll('_', ' ');

/** A signed number: +3, −2, 0. */
export const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : '0');

/** Text with `code` spans and *emphasis*, as the rules write codes and words. */
export function ruleText(text) {
  return text.split('`').map((part, i) => (i % 2
    ? h('code', {}, part)
    : part.split(/\*([^*]+)\*/).map((bit, j) => (j % 2 ? h('em', {}, bit) : bit))));
}

/** A rule id linked to the rules page, followed by the rule's text (`full`) or with it as a tooltip. */
export function rule(id, rules, full = true) {
  const text = rules?.[id];
  return h('span', { class: 'rule', 'data-rule': id },
    h('a', { href: `/rules#${id}`, title: full ? null : text }, id),
    full && text ? [' ', h('span', { class: 'rule-text' }, ruleText(text))] : null);
}

/** A problem answer: what went wrong, its stable code, and the rule it broke with that rule's text. */
export function problemBox(problem, rules, ondismiss) {
  return h('div', { class: 'problem', role: 'alert', 'data-code': problem.code },
    h('p', {}, h('strong', {}, problem.status ? `Refused (${problem.status})` : 'No answer'), ': ',
      problem.detail ?? words(problem.title ?? problem.code), ' ', h('code', {}, problem.code)),
    problem.rule ? h('p', {}, 'Rule ', rule(problem.rule, rules)) : null,
    ondismiss ? h('button', { type: 'button', onclick: ondismiss }, 'Dismiss') : null);
}

/** An error thrown by `call` as the problem it carries; anything else as an internal one. */
export function problemOf(error) {
  if (error?.problem) return { status: error.status, ...error.problem };
  return { status: 0, code: 'client_error', detail: String(error) };
}

/** Score lines (R8, R9) as a list: points, party, reason, rule id with its text. */
export function scoreLines(lines, rules) {
  return h('ul', { class: 'lines' },
    lines.map((line) => h('li', {
      'data-rule': line.rule, 'data-party': line.party, 'data-points': line.points, 'data-reason': line.reason,
    },
      h('span', { class: 'points' }, `${line.points} ${line.party}`), ' ', line.reason, ' ', rule(line.rule, rules, false))));
}

/**
 * A stream event in words, as a list of strings and card elements. `seats` names the
 * players; `deal` is the number of the deal the event belongs to.
 */
export function describe(event, seats, deal) {
  const e = event.data;
  const who = (seat) => seatName(seats, seat);
  switch (event.type) {
    case 'table_created': return [`Table “${e.name}” opened`];
    case 'seat_taken': return [`${e.name} sat down at seat ${e.seat}`, e.bot ? ` (${e.bot} bot)` : ''];
    case 'session_started': return [`The session starts: ${who(e.first_dealer)} deals first`];
    case 'deal_dealt': return [`Deal ${e.deal_no}: ${who(e.dealer)} dealt`];
    case 'declared': return [`${who(e.seat)}: ${e.declaration}`];
    case 'contract_named': return [`${who(e.seat)} named ${words(e.contract)}`];
    case 'game_type_fixed':
      return [`Game: ${words(e.game_type)}`, given(e.declarer) ? `, declarer ${who(e.declarer)}` : ''];
    case 'card_played': return [`${who(e.seat)} played `, card(e.card, e.seat, deal)];
    case 'trick_won': return [`${who(e.winner)} won trick ${e.trick_no}`];
    case 'marriage_clarified':
      return [!given(e.partner)
        ? `Marriage: no partner in trick ${e.trick_no}, a solo`
        : `Marriage: ${who(e.partner)} is the partner (trick ${e.trick_no})`];
    case 'announced':
      return [`${who(e.seat)} announced ${e.words.join(' + ')} (${e.party}, with ${e.cards} cards)`, e.late_reply ? ', a late reply' : ''];
    case 'deal_scored':
      return [`Deal ${e.deal_no} scored: ${e.score.winner ? `${e.score.winner} won` : 'no winner'}, value ${signed(e.score.value)} for Re`];
    case 'session_finished': return [`The session is over: ${e.winners.map(who).join(' and ')} won`];
    case 'seat_left':
      return [e.by_host ? `The host vacated seat ${e.seat} (${e.name})` : `${e.name} left seat ${e.seat}`];
    case 'turn_timed_out': return [`${who(e.seat)}'s time ran out: the stand-in acts for them`];
    case 'seat_away': return [`${who(e.seat)} is away: the stand-in plays their turns`];
    case 'seat_back': return [`${who(e.seat)} is back`];
    case 'table_closed': return ['The host closed the table'];
    case 'session_abandoned': return [`The host abandoned the session after ${e.deals} deals: no winners`];
    default: return [words(event.type)];
  }
}

/** The seconds left until `deadline` (an ISO date-time, UTC) by this browser's clock, as
 * `0:23`; `0:00` once it has passed. */
export function timeLeft(deadline) {
  const seconds = Math.max(0, Math.ceil((Date.parse(deadline) - Date.now()) / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/** Text of a description (for the live region). */
export const plain = (parts) => parts.map((p) => (typeof p === 'string' ? p : p.title || p.textContent)).join('');
