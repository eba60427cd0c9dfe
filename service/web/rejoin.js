// Never lose a seat: this browser keeps a table's credentials (see api.js `held`), and a
// seat's personal rejoin link opens the seat (and the host role) on another device:
// `/t/{table}#rejoin=<seat token>` (with `&host=<host token>` for the table's host, or only
// `#host=…` for a host without a seat). Like the invitation link, the tokens travel in the
// URL's fragment, which the browser never sends: the page keeps them, takes them out of the
// address bar, and sends them only in headers.
import { call, hold } from './api.js';

/** The personal link that opens what this browser holds of a table's seat and host role on
 * another device; null when it holds neither. */
export function rejoinLink(table, mine) {
  const parts = [];
  if (mine.token) parts.push(`rejoin=${encodeURIComponent(mine.token)}`);
  if (mine.host) parts.push(`host=${encodeURIComponent(mine.host)}`);
  return parts.length ? `${location.origin}/t/${encodeURIComponent(table)}#${parts.join('&')}` : null;
}

/** Keep the seat token and host token this page's link carries in its fragment, then take
 * them out of the address bar. The seat of the token is found by `seatOf`. */
export function takeRejoin(table) {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const token = fragment.get('rejoin');
  const host = fragment.get('host');
  if (!token && !host) return;
  hold(table, { ...(token ? { token, seat: null } : {}), ...(host ? { host } : {}) });
  history.replaceState(null, '', location.pathname + location.search);
}

/** The seat of the table `table` whose token `token` is, asked of the service (each seat's
 * view answers only its own token), or null when it opens none.
 * @param {string} table @param {string} token */
export async function seatOf(table, token) {
  for (const seat of /** @type {const} */ ([0, 1, 2, 3])) {
    try {
      await call('GET', '/tables/{table_id}/seats/{seat}', { params: { path: { table_id: table, seat } }, token });
      return seat;
    } catch (error) {
      if (error.status === 0) throw error;
    }
  }
  return null;
}
