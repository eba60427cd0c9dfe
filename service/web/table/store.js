// The table page's one state (the last view, the events since, this tab's credentials), its update and subscribers.
import { held, hold } from '../api.js';
import { rememberedName } from '../name.js';
import { steady } from '../ui.js';

/** The table this page is of. */
export const table = decodeURIComponent(location.pathname.split('/')[2]);

export const state = {
  mine: /** @type {import('../api.js').Held} */ ({}), // {seat, token, host, invitation} held by this browser (`recall`)
  view: null, // the last view
  version: 0, // its table version
  latest: 0, // the newest version known, from the view or an event
  streamed: null, // the id of the last event the stream brought
  since: [], // the events after the view
  log: [], // every event received on this page, with the deal it belongs to
  deal: null, // the deal the next events belong to
  sheet: null, // the scoresheet
  result: null, // the last deal scored (a deal_scored event)
  record: null, // that deal's record, for its last trick
  resultClosed: null, // the deal whose result this player closed
  standingsClosed: false, // whether this player closed the final standings
  finished: null, // the finished trick on the board: {key, pausing, dismissed}
  peek: false, // whether the player looks at the last trick
  problem: null,
  problems: 0, // how many refusals this page has shown
  from: null, // the version the page's stream started after
  connection: 'connecting',
  opened: 0,
  spoken: [],
  logOpen: true, // whether the log's list is unfolded (in its dialog it is, unless folded)
  inviteOpen: null, // whether the invitation panel is open (null: open while a seat is empty)
  copied: '', // the id of the field whose link was copied last
  copiedText: '',
  confirming: null, // the data-key of the command waiting for a "yes"
  sitName: rememberedName(),
  botKind: null,
  rules: {},
  types: [],
  skew: 0, // the service's clock minus this browser's (ms), from the last `server_time`
  hosted: null, // the host's life actions, for a host who sits too (its view is the seat's)
  hostedVersion: undefined, // the version they are of
  handFocused: false, // whether the focus was in the hand (a redraw puts it back there)
  talk: [], // the table talk heard (table/talk.js), oldest first
  talkLast: 0, // the last talk id heard
  talkMutes: { seats: [], spectators: false }, // whom the host muted (T5.3)
  talkOpen: false, // whether the talk part is open
  talkDraft: '', // the message being typed
  talkName: '', // a spectator's name for the talk
  turnHeard: false, // whether the page has sounded this turn of the seat's (settings.js)
};

/** @type {(() => void)[]} */
const subscribers = [];

/** Call `redraw` after every update (not while a click is under way: ui.js `steady`).
 * @param {() => void} redraw */
export function subscribe(redraw) {
  subscribers.push(steady(redraw));
}

/** Change the state (`changes`, if any) and redraw: what is drawn comes from the state only.
 * A change that needs no redraw (text being typed, a panel toggled) is made on `state`. */
export function update(changes = {}) {
  Object.assign(state, changes);
  for (const redraw of subscribers) redraw();
}

/** Read again what this browser holds for the table (api.js `held`). */
export function recall() {
  state.mine = held(table);
}

/** Keep more for the table on this browser (api.js `hold`; null forgets), and read it again. */
export function keep(more) {
  hold(table, more);
  recall();
}

/** The path parameters of this table's operations, of a seat's. */
export const at = { path: { table_id: table } };
/** @param {number} seat */
export const atSeat = (seat) => ({ path: { table_id: table, seat } });
export const seated = () => state.mine.token !== undefined;
/** What opens a private table to this tab as a spectator (T1.1): the host token or the
 * invitation; a public table needs neither. */
export const pass = () => state.mine.host ?? state.mine.invitation;
/** What opens what any viewer may see (the scoresheet, scored deals, the export). */
export const anyPass = () => pass() ?? state.mine.token;
export const running = (view) => view.status === 'open' || view.status === 'playing';

/** The life action `action` (on `seat`, for `vacate`) as the service allows or refuses it
 * to this tab (the view's `actions`; the host's of a seated host apart), or undefined. */
export function permission(view, action, seat = null) {
  const host = ['vacate', 'close', 'abandon', 'rotate_invitation'].includes(action);
  const actions = host && seated() ? state.hosted : view.actions;
  return actions?.find((a) => a.action === action && (a.seat ?? null) === seat);
}
