// The table page's commands: a seat's, sitting down and leaving, the host's, the export; one at a time, refusals shown.
import { call, commands, download } from '../api.js';
import { rememberName } from '../name.js';
import { accept, connect, forgetSeat, refresh } from './sync.js';
import { anyPass, at, atSeat, keep, state, table, update } from './store.js';

/** Send a command (api.js `commands`: one at a time). A refusal is shown with its rule and
 * counted, and the view is fetched again: the server decides what is possible. */
const command = commands((problem) => {
  state.problem = problem;
  if (problem) {
    state.problems += 1;
    refresh();
  }
  update({ confirming: null });
});

/** A command of this tab's seat, sent by `request` with the seat's path parameters and
 * token; the answer is the seat's new view.
 * @param {(seat: {params: {path: {table_id: string, seat: number}}, token: string}) =>
 *   Promise<{data: import('../api.js').Schemas['CommandResponse']}>} request */
export const act = (request) => command(async () => {
  const answer = await request({ params: atSeat(state.mine.seat), token: state.mine.token });
  accept(answer.data.version, answer.data.view);
});

/** Sit down on a free or vacant seat (T2.2), with the invitation of a private table (T1.1). */
export const sit = (seat) => command(async () => {
  const taken = (await call('POST', '/tables/{table_id}/seats', {
    params: at,
    body: { name: rememberName(state.sitName.trim()), seat, invitation: state.mine.invitation },
  })).data;
  keep({ seat: taken.seat, token: taken.token });
  accept(taken.version, taken.view);
  connect();
});

/** Leave this tab's seat (T2): the token stops working, the page is a spectator's. */
export const leave = () => command(async () => {
  const answer = await call('DELETE', '/tables/{table_id}/seats/{seat}', { params: atSeat(state.mine.seat), token: state.mine.token });
  forgetSeat();
  accept(answer.data.version, answer.data.view);
  connect();
});

/** Learn of a version a command made, and fetch the view of this tab anew. */
function made(version) {
  state.latest = Math.max(state.latest, version);
  return refresh();
}

/** A command of the host's, sent by `request` with the host token: its answer is the public
 * view, so the page fetches its own.
 * @param {(token: string) => Promise<{data: {version: number}}>} request */
export const asHost = (request) => command(async () => {
  await made((await request(state.mine.host)).data.version);
});

/** As the host, replace the private table's invitation code (T1.2): the old link opens
 * nothing any more; this tab keeps the new one. */
export const rotateInvitation = () => command(async () => {
  const answer = (await call('POST', '/tables/{table_id}/invitation', { params: at, token: state.mine.host })).data;
  keep({ invitation: answer.invitation });
  await made(answer.version);
});

/** As the host, seat bots of the chosen kind on `seats` (free or vacant), one after another,
 * named as the lobby names them (`Bot 2`: the same in every language, not the kind's API name). */
export const seatBots = (seats) => command(async () => {
  for (const seat of seats) {
    const body = { kind: state.botKind, seat, name: `Bot ${seat}` };
    await made((await call('POST', '/tables/{table_id}/bots', { params: at, token: state.mine.host, body })).data.version);
  }
});

/** Download the session's export (what `doko verify --file` checks). */
export const exportSession = () => command(() => download('/tables/{table_id}/export', {
  params: at, token: anyPass(), filename: `doko-${table}.json`,
}));
