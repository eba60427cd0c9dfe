// The doko API as every page uses it: requests with problem+json errors, the credentials
// this browser holds for a table (seat token, host token, invitation code), and live
// streams that resume where they stopped. A credential goes in a header, never in a URL
// (a stream is opened with a single-use ticket obtained with it, see `follow`).
// The pages never decide a rule: what is legal comes from the views the server sends.

/** An answer with status >= 400 (or no answer at all: status 0), with its RFC 9457 problem. */
export class ProblemError extends Error {
  /** @param {number} status @param {{code?: string, detail?: string, rule?: string}} problem */
  constructor(status, problem) {
    super(`${status} ${problem.code}: ${problem.detail ?? ''}`);
    this.status = status;
    this.problem = problem;
  }
}

/** The table version an ETag names (`"12"` or `W/"12"`), or null. */
function versionOf(response) {
  const tag = response.headers.get('etag');
  return tag ? Number(tag.replace(/^W\//, '').replaceAll('"', '')) : null;
}

/** Send a request; the answer when its status is below 400, else a ProblemError with the
 * answer's problem (or `no_answer` when the service did not answer). */
async function send(method, path, { token, body, params, headers = {}, signal } = {}) {
  const url = new URL(path, location.origin);
  for (const [key, value] of Object.entries(params ?? {})) {
    if (value !== undefined && value !== null) url.searchParams.set(key, String(value));
  }
  const sent = { ...headers };
  if (token) sent.authorization = `Bearer ${token}`;
  if (body !== undefined) sent['content-type'] = 'application/json';
  let response;
  try {
    response = await fetch(url, {
      method,
      headers: sent,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
  } catch {
    throw new ProblemError(0, { code: 'no_answer', detail: 'the service did not answer; try again' });
  }
  if (!response.ok && response.status !== 304) {
    const problem = await response.json().catch(() => null);
    throw new ProblemError(response.status, problem ?? { code: 'http_error', detail: response.statusText });
  }
  return response;
}

/**
 * One request. Resolves to {status, version, data} (data null for 304); rejects with a
 * ProblemError for an error answer or when the service does not answer.
 * @param {string} method @param {string} path
 * @param {{token?: string, body?: unknown, params?: Record<string, unknown>, version?: number}} options
 *   `token`: sent as the Bearer token, never in the URL. `version`: the table version held
 *   (sent as If-None-Match; 304 when unchanged).
 */
export async function call(method, path, { token, body, params, version } = {}) {
  const headers = { accept: 'application/json' };
  if (version !== undefined && version !== null) headers['if-none-match'] = `"${version}"`;
  const response = await send(method, path, { token, body, params, headers });
  if (response.status === 304) return { status: 304, version: versionOf(response), data: null };
  const data = await response.json().catch(() => null);
  return { status: response.status, version: versionOf(response), data };
}

/** Download what `path` answers as the file `filename` (with the Bearer `token`, which a
 * plain link could not send). */
export async function download(path, { token, filename }) {
  const blob = await (await send('GET', path, { token })).blob();
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = filename;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
}

const PREFIX = 'doko:';
const storageKey = (table) => `${PREFIX}${table}`;

/**
 * What this browser holds for a table: {seat, token} once seated, {host} for its host,
 * {invitation} for a private table's invitation code.
 * Kept in localStorage, per table: a seat and the host role survive closing the tab, a new
 * tab and a restart of the browser, until `forget`. Never sent but in a header.
 * @returns {{seat?: number, token?: string, host?: string, invitation?: string}}
 */
export function held(table) {
  try {
    return JSON.parse(localStorage.getItem(storageKey(table)) ?? '{}');
  } catch {
    return {};
  }
}

/** Keep more for a table (see `held`); null values forget. */
export function hold(table, more) {
  const now = { ...held(table), ...more };
  for (const key of Object.keys(now)) if (now[key] === null) delete now[key];
  localStorage.setItem(storageKey(table), JSON.stringify(now));
}

/** Forget everything this browser holds for a table. */
export const forget = (table) => localStorage.removeItem(storageKey(table));

/** The tables this browser holds something for (see `held`). */
export function heldTables() {
  return Object.keys(localStorage).filter((key) => key.startsWith(PREFIX)).map((key) => key.slice(PREFIX.length));
}

/** The link that invites to a private table: the code in the URL's fragment, which the
 * browser never sends to the service (nor to its logs, nor as a Referer). */
export const invitationLink = (table, code) => `${location.origin}/t/${encodeURIComponent(table)}#invitation=${encodeURIComponent(code)}`;

/** The invitation code an invitation link (or the code itself) carries, or null. */
export function invitationIn(text) {
  const code = text.trim().match(/(?:^|#|&)invitation=([^&\s]+)/)?.[1] ?? (/^[\w-]+$/.test(text.trim()) ? text.trim() : null);
  return code ? decodeURIComponent(code) : null;
}

/** Keep the invitation this page's link carries in its fragment (`#invitation=…`), then take
 * it out of the address bar: it is kept in this browser's storage, and not shown. */
export function takeInvitation(table) {
  const code = location.hash.startsWith('#invitation=') ? invitationIn(location.hash) : null;
  if (!code) return;
  hold(table, { invitation: code });
  history.replaceState(null, '', location.pathname + location.search);
}

let metaAnswer;
/** The rule texts by id and the stream's event types (`/web/meta.json`), fetched once. */
export function meta() {
  metaAnswer ??= call('GET', '/web/meta.json').then((answer) => answer.data);
  return metaAnswer;
}

let schemaAnswer;
/** The OpenAPI document, fetched once: what the API offers decides what a form shows. */
export function schema() {
  schemaAnswer ??= call('GET', '/schema/openapi.json').then((answer) => answer.data);
  return schemaAnswer;
}

/** How long to wait before opening a stream again that could not be opened. */
const REOPEN_MS = 2000;

/**
 * Follow a table's Server-Sent Events stream (`…/events`) from the event after `after`, as
 * the holder of `token` (a seat token) or `secret` (a host token or an invitation code), or
 * of neither. A credential never goes in a URL: each time the stream is opened, it is sent
 * in the Authorization header for a stream ticket (`…/stream-tickets`: it opens the stream
 * once, within a minute), and the EventSource opens the stream with `ticket` and `after` =
 * the last id received. Without a credential the browser's EventSource reconnects by
 * itself after a lost connection and sends Last-Event-ID; with one, a lost stream is opened
 * again here at once with a new ticket (a ticket opens a stream once). Either way the
 * service resumes after the last event received: nothing is missed and nothing comes twice.
 * A stream that could not be reached is tried again after a while ('reconnecting'); one
 * the service refused, or that got no ticket, too, after saying 'lost'.
 * `onEvent({id, type, data})` gets each event; `onStatus(status)` gets 'live' (each time
 * the stream is (re)opened), 'reconnecting' or 'lost'.
 * @returns {{close(): void}}
 */
export function follow(path, { token, secret, after, types, onEvent, onStatus }) {
  const credential = token ?? secret;
  let last = after;
  let source = null;
  let timer = null;
  let closed = false;
  const deliver = (type, id, data) => {
    if (!types.includes(type)) return;
    last = id;
    onEvent({ id, type, data: JSON.parse(data) });
  };
  const reopen = () => {
    onStatus('lost');
    timer = setTimeout(open, REOPEN_MS);
  };
  const ticket = async () => {
    const answer = await call('POST', path.replace(/\/events$/, '/stream-tickets'), { token: credential });
    return answer.data.ticket;
  };
  const open = async () => {
    const url = new URL(path, location.origin);
    url.searchParams.set('after', String(last));
    if (credential) {
      try {
        url.searchParams.set('ticket', await ticket());
      } catch {
        if (!closed) reopen();
        return;
      }
    }
    if (closed) return;
    let opened = false;
    const current = new EventSource(url);
    source = current;
    current.onopen = () => {
      opened = true;
      onStatus('live');
    };
    current.onerror = () => {
      const refused = current.readyState === EventSource.CLOSED; // an error answer
      if (!credential && !refused) {
        onStatus('reconnecting'); // the browser reconnects by itself
        return;
      }
      current.close();
      if (refused) {
        reopen();
        return;
      }
      onStatus('reconnecting'); // lost, or not reached: with a new ticket
      if (opened) open();
      else timer = setTimeout(open, REOPEN_MS);
    };
    for (const type of types) {
      current.addEventListener(type, (message) => deliver(type, Number(message.lastEventId), message.data));
    }
  };
  open();
  return {
    close() {
      closed = true;
      clearTimeout(timer);
      source?.close();
    },
  };
}
