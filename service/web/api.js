// The doko API as every page uses it: requests with problem+json errors, the seat
// tokens this browser holds, and live streams that resume where they stopped.
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

/**
 * One request. Resolves to {status, version, data} (data null for 304); rejects with a
 * ProblemError for an error answer or when the service does not answer.
 * @param {string} method @param {string} path
 * @param {{token?: string, body?: unknown, params?: Record<string, unknown>, version?: number}} options
 *   `version`: the table version held (sent as If-None-Match; 304 when unchanged).
 */
export async function call(method, path, { token, body, params, version } = {}) {
  const url = new URL(path, location.origin);
  for (const [key, value] of Object.entries(params ?? {})) {
    if (value !== undefined && value !== null) url.searchParams.set(key, String(value));
  }
  const headers = { accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (version !== undefined && version !== null) headers['if-none-match'] = `"${version}"`;
  let response;
  try {
    response = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ProblemError(0, { code: 'no_answer', detail: 'the service did not answer; try again' });
  }
  if (response.status === 304) return { status: 304, version: versionOf(response), data: null };
  const data = await response.json().catch(() => null);
  if (!response.ok) {
    throw new ProblemError(response.status, data ?? { code: 'http_error', detail: response.statusText });
  }
  return { status: response.status, version: versionOf(response), data };
}

const storageKey = (table) => `doko:${table}`;

/**
 * What this browser tab holds for a table: {seat, token} once seated, {host} for its host.
 * Kept in sessionStorage: per tab, gone when the tab closes, never sent but as a header.
 * @returns {{seat?: number, token?: string, host?: string}}
 */
export function held(table) {
  try {
    return JSON.parse(sessionStorage.getItem(storageKey(table)) ?? '{}');
  } catch {
    return {};
  }
}

/** Keep more for a table (see `held`); null values forget. */
export function hold(table, more) {
  const now = { ...held(table), ...more };
  for (const key of Object.keys(now)) if (now[key] === null) delete now[key];
  sessionStorage.setItem(storageKey(table), JSON.stringify(now));
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

/** How long to wait before opening a stream again that the server closed. */
const REOPEN_MS = 2000;

/**
 * Follow a Server-Sent Events stream from the event after `after`.
 * The browser's EventSource reconnects by itself after a lost connection and sends
 * Last-Event-ID, so the service resumes after the last event received: nothing is missed
 * and nothing comes twice. When the server refuses a reconnection (the stream is closed
 * for good), it is opened again here from the last id received.
 * `onEvent({id, type, data})` gets each event; `onStatus(status)` gets 'live' (each time
 * the stream is (re)opened), 'reconnecting' or 'lost'.
 * @returns {{close(): void}}
 */
export function follow(path, { token, after, types, onEvent, onStatus }) {
  let last = after;
  let source = null;
  let timer = null;
  const open = () => {
    const url = new URL(path, location.origin);
    if (token) url.searchParams.set('token', token);
    url.searchParams.set('after', String(last));
    source = new EventSource(url);
    source.onopen = () => onStatus('live');
    source.onerror = () => {
      if (source.readyState !== EventSource.CLOSED) {
        onStatus('reconnecting');
        return;
      }
      onStatus('lost');
      timer = setTimeout(open, REOPEN_MS);
    };
    for (const type of types) {
      source.addEventListener(type, (message) => {
        last = Number(message.lastEventId);
        onEvent({ id: last, type, data: JSON.parse(message.data) });
      });
    }
  };
  open();
  return {
    close() {
      clearTimeout(timer);
      source?.close();
    },
  };
}
