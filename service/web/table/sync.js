// The table page in step with the service: the view this tab may see, the table's stream, the scoresheet, a deal's record.
import { call, follow, problemOf } from '../api.js';
import { describe, plain } from '../ui.js';
import { showConnection } from './connection.js';
import { heard, loadTalk } from './talk.js';
import { anyPass, at, atSeat, keep, pass, seated, state, table, update } from './store.js';

const SPOKEN_EVENTS = new Set([
  'deal_dealt', 'game_type_fixed', 'card_played', 'trick_won', 'marriage_clarified', 'announced',
  'deal_scored', 'session_finished', 'seat_left', 'turn_timed_out', 'seat_away', 'seat_back',
  'table_closed', 'session_abandoned',
]);
const SHEET_EVENTS = new Set([
  'seat_taken', 'seat_left', 'session_started', 'deal_scored', 'session_finished', 'session_abandoned',
]);

/** The view as this tab may see it: the seat's own, or the public one (and, for a host who
 * sits too, the host's life actions first: `fetchHosted`). */
export async function fetchView() {
  const query = { min_version: state.latest || undefined };
  const version = state.view ? state.version : undefined;
  if (!seated()) return call('GET', '/tables/{table_id}', { params: { ...at, query }, version, token: pass() });
  if (state.mine.host) await fetchHosted();
  return call('GET', '/tables/{table_id}/seats/{seat}', {
    params: { ...atSeat(state.mine.seat), query }, version, token: state.mine.token,
  });
}

/** What the service's clock said at `time` (its `server_time`) against this browser's now.
 * @param {string | null | undefined} time */
function tell(time) {
  if (time) state.skew = Date.parse(time) - Date.now();
}

/** Take a newer view: the events it includes are no longer "since". */
export function accept(version, view) {
  if (!view || version < state.version) return;
  tell(view.server_time);
  state.view = view;
  state.version = version;
  state.latest = Math.max(state.latest, version);
  state.since = state.since.filter((event) => event.id > version);
  state.deal ??= view.deal?.deal_no ?? null;
  update();
}

/** This tab's seat token no longer works, or its player left (T2): forget it; the page is a
 * spectator's from the next view on (the seat's view is dropped, its hand with it). */
export function forgetSeat() {
  keep({ seat: null, token: null });
  state.view = null;
  state.version = 0;
}

/** Whether a request failed because this tab's seat token no longer opens the seat (at a
 * private table, where a token that opens nothing finds no table: 404, T1.1). */
export const seatGone = (error) => seated() && [401, 403, 404].includes(error.status);

let refreshing = false;
let again = false;
/** Fetch the view again (one request at a time; once more if events came meanwhile). A seat
 * token that stopped working (its player left, or the host vacated the seat) is forgotten
 * and the stream followed as a spectator. */
export async function refresh() {
  if (refreshing) {
    again = true;
    return;
  }
  refreshing = true;
  await showingProblems(async () => {
    do {
      again = false;
      let answer;
      try {
        answer = await fetchView();
      } catch (error) {
        if (!seatGone(error)) throw error;
        forgetSeat();
        connect();
        again = true;
        continue;
      }
      if (state.problem?.status === 0) state.problem = null; // the service answers again
      if (answer.status !== 304) accept(answer.version, answer.data);
    } while (again);
  });
  refreshing = false;
}

/** The host's life actions for a host who also sits (the seat's view has the seat's): the
 * public view as the host token sees it, at the version the seat's view will be at least. */
async function fetchHosted() {
  const answer = await call('GET', '/tables/{table_id}', {
    params: { ...at, query: { min_version: state.latest || undefined } }, version: state.hostedVersion, token: state.mine.host,
  });
  if (answer.status === 304) return;
  state.hosted = answer.data.actions;
  state.hostedVersion = answer.version;
}

/** Run `work`; if it fails, the failure is shown as the page's problem. */
async function showingProblems(work) {
  try {
    await work();
  } catch (error) {
    update({ problem: problemOf(error) });
  }
}

/** The scoresheet (the service's, at the version known at least). */
export const loadSheet = () => showingProblems(async () => {
  const sheet = (await call('GET', '/tables/{table_id}/scoresheet', {
    token: anyPass(), params: { ...at, query: { min_version: state.latest || undefined } },
  })).data;
  update({ sheet });
});

/** A scored deal's record (public once scored, R4.3): its last trick is shown after it. */
const loadRecord = (dealNo) => showingProblems(async () => {
  const record = (await call('GET', '/tables/{table_id}/deals/{deal_no}', {
    params: { path: { table_id: table, deal_no: dealNo } }, token: anyPass(),
  })).data;
  update({ record });
});

let stream = null;
/** Follow the table's events as this tab may see them, from the last one received (or the
 * version of the page's first view): with the seat's token, else as a spectator (at a private
 * table with the host token or the invitation, which the stream takes in a header). A stream
 * opened anew (sitting down, leaving) so goes on where the last one stopped. */
export function connect() {
  stream?.close();
  state.opened = 0;
  state.from ??= state.latest;
  stream = follow(table, {
    token: state.mine.token,
    secret: seated() ? undefined : pass(),
    after: state.streamed ?? state.from,
    types: state.types,
    onEvent: received,
    onTalk: (entry) => heard([entry]),
    onStatus: (now) => {
      state.connection = now;
      // Back after a lost connection: the stream resumes by itself, the view is fetched anew
      // (also when the stream was refused: perhaps the seat's token no longer works).
      if ((now === 'live' && state.opened++ > 0) || now === 'lost') {
        refresh();
        loadTalk(); // what was said while the stream was away
      }
      showConnection();
    },
  });
}

function received(event) {
  tell(event.data?.server_time);
  if (event.type === 'deal_dealt') state.deal = event.data.deal_no;
  state.log.push({ ...event, deal: state.deal });
  state.streamed = event.id;
  state.latest = Math.max(state.latest, event.id);
  if (event.id > state.version) state.since.push(event);
  if (event.type === 'deal_scored') {
    state.result = event.data;
    loadRecord(event.data.deal_no);
  }
  if (SPOKEN_EVENTS.has(event.type)) {
    state.spoken = [...state.spoken, plain(describe(event, state.view?.seats, state.deal))].slice(-3);
  }
  if (SHEET_EVENTS.has(event.type)) loadSheet();
  update();
  refresh();
}
