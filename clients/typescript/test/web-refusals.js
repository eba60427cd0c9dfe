// What `npm run check:web` refuses in the web client's requests (service/web/api.js): each
// line after a `@ts-expect-error` is a type error, so a check that stopped reading the
// document's types fails here (an unused `@ts-expect-error` is an error itself). Only
// type-checked, never run.
import { call } from '../../../service/web/api.js';

const at = { path: { table_id: 't' } };
const seat = { path: { table_id: 't', seat: 0 } };

export async function refusals() {
  // @ts-expect-error: no such path in the document
  await call('GET', '/tables/{table_id}/scoresheets', { params: at });
  // @ts-expect-error: the table's id is a required path parameter
  await call('GET', '/tables/{table_id}', {});
  // @ts-expect-error: `cards` is not a member of PlayRequest
  await call('POST', '/tables/{table_id}/seats/{seat}/play', { params: seat, body: { cards: 'QC' } });
  // @ts-expect-error: not a card
  await call('POST', '/tables/{table_id}/seats/{seat}/play', { params: seat, body: { card: 'QX' } });
  const taken = await call('POST', '/tables/{table_id}/seats', { params: at, body: { name: 'Anna' } });
  // @ts-expect-error: a SeatTakenResponse has no `tokens`
  taken.data.tokens;
  const view = await call('GET', '/tables/{table_id}', { params: at, version: 3 });
  // @ts-expect-error: a 304 (the version held is current) has no body
  view.data.name;
  if (view.status === 200) return view.data.name;
  return taken.data.token;
}
