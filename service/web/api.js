// The doko API as every page uses it: requests with problem+json errors, the credentials
// this browser holds for a table (seat token, host token, invitation code), and live
// streams that resume where they stopped. A credential goes in a header, never in a URL
// (a stream is opened with a single-use ticket obtained with it, see `follow`).
// The pages never decide a rule: what is legal comes from the views the server sends.
// The types are the OpenAPI document's, from the shipped TypeScript client
// (clients/typescript, `npm run check:web` there): a request names its operation by method
// and path as the document writes it, and its parameters, body and answer are checked.
// They are only comments: the browser runs this file as it is.

/**
 * @typedef {import('../../clients/typescript/src/index.js').Schemas} Schemas
 * @typedef {import('../../clients/typescript/src/index.js').Method} Method
 * @typedef {import('../../clients/typescript/src/index.js').Problem} Problem
 * @typedef {import('../../clients/typescript/src/index.js').TableStreamData} TableStreamData
 */
/**
 * @template {Method} M
 * @typedef {import('../../clients/typescript/src/index.js').PathOf<M>} PathOf
 */
/**
 * @template {Method} M
 * @template {PathOf<M>} P
 * @typedef {import('../../clients/typescript/src/index.js').Operation<M, P>} Operation
 */
/**
 * What a request of an operation takes: `params` (`path`, `query`, `header`) and `body` as
 * the document says, `token` (sent as the Bearer token) and `version` (the table version
 * held: sent as If-None-Match, 304 when unchanged).
 * @template O
 * @typedef {import('../../clients/typescript/src/index.js').RequestOf<O> & {token?: string, version?: number}} RequestOf
 */
/**
 * An answer of an operation: its status and decoded body, with the table version its ETag
 * names (or null).
 * @template O
 * @typedef {import('../../clients/typescript/src/index.js').AnswerOf<O> & {version: number | null}} AnswerOf
 */
/**
 * A problem made here, for a request the service did not answer (`no_answer`) or answered
 * without a problem (`http_error`).
 * @typedef {{code: 'no_answer' | 'http_error', detail: string, status?: undefined, rule?: undefined}} LocalProblem
 */
/**
 * The parameters of a request, as `call` reads them.
 * @typedef {{path?: Record<string, unknown>, query?: Record<string, unknown>, header?: Record<string, unknown>}} Params
 */

/** An answer with status >= 400 (or no answer at all: status 0), with its RFC 9457 problem. */
export class ProblemError extends Error {
  /** @param {number} status @param {Problem | LocalProblem} problem */
  constructor(status, problem) {
    super(`${status} ${problem.code}: ${problem.detail ?? ''}`);
    this.status = status;
    this.problem = problem;
  }
}

/** A failure as the problem a page shows: a ProblemError's (an answer's problem+json, with
 * its status), anything else as the page's own (`client_error`, status 0).
 * @param {unknown} error */
export function problemOf(error) {
  const failed = /** @type {{status?: number, problem?: Problem | LocalProblem} | null | undefined} */ (error);
  if (failed?.problem) return { status: failed.status, ...failed.problem };
  return { status: 0, code: 'client_error', detail: String(error) };
}

/**
 * How a page sends its commands: `commands(settle)` is the page's `command(work)`, which
 * runs `work` (the command's requests) unless another command of the page is on its way (one
 * at a time: `body[data-sending]` says one is; `body[data-sent]` counts those sent), then calls
 * `settle(problem)`: null when the
 * service took the command, else its refusal (`problemOf`: code, status and rule) for the
 * page to show, and to fetch what the service says now.
 * @param {(problem: ReturnType<typeof problemOf> | null) => void} settle
 * @returns {(work: () => Promise<unknown>) => Promise<void>}
 */
export function commands(settle) {
  let sending = false;
  return async function command(work) {
    if (sending) return;
    sending = true;
    document.body.dataset.sending = 'true';
    document.body.dataset.sent = String(Number(document.body.dataset.sent || 0) + 1);
    /** @type {ReturnType<typeof problemOf> | null} */
    let problem = null;
    try {
      await work();
    } catch (error) {
      problem = problemOf(error);
    } finally {
      sending = false;
      document.body.dataset.sending = 'false';
    }
    settle(problem);
  };
}

/** The table version an ETag names (`"12"` or `W/"12"`), or null.
 * @param {Response} response */
function versionOf(response) {
  const tag = response.headers.get('etag');
  return tag ? Number(tag.replace(/^W\//, '').replaceAll('"', '')) : null;
}

/** The URL of `path` (as the document writes it: `/tables/{table_id}`) with its path
 * parameters filled in and its query parameters (a list as the parameter repeated).
 * @param {string} path @param {Params} params */
function urlOf(path, { path: values = {}, query = {} }) {
  const url = new URL(path.replace(/\{(\w+)\}/g, (_, name) => encodeURIComponent(String(values[name]))), location.origin);
  for (const [key, value] of Object.entries(query)) {
    for (const one of [value].flat()) {
      if (one !== undefined && one !== null) url.searchParams.append(key, String(one));
    }
  }
  return url;
}

/** Send a request; the answer when its status is below 400, else a ProblemError with the
 * answer's problem (or `no_answer` when the service did not answer).
 * @param {string} method @param {URL} url
 * @param {{token?: string, body?: unknown, headers?: Record<string, string>}} options */
async function send(method, url, { token, body, headers = {} }) {
  const sent = { ...headers };
  if (token) sent.authorization = `Bearer ${token}`;
  if (body !== undefined) sent['content-type'] = 'application/json';
  let response;
  try {
    response = await fetch(url, {
      method,
      headers: sent,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ProblemError(0, { code: 'no_answer', detail: 'the service did not answer; try again' });
  }
  if (!response.ok && response.status !== 304) {
    const problem = /** @type {Problem | null} */ (await response.json().catch(() => null));
    throw new ProblemError(response.status, problem ?? { code: 'http_error', detail: response.statusText });
  }
  return response;
}

/**
 * One request of the operation `method` `path` (as the document writes it:
 * `call('GET', '/tables/{table_id}', {params: {path: {table_id}}})`). Resolves to
 * {status, version, data} (data null for 304); rejects with a ProblemError for an error
 * answer or when the service does not answer. `token` is sent as the Bearer token, never in
 * the URL; `version` is the table version held (sent as If-None-Match; 304 when unchanged).
 * @template {Method} M
 * @template {PathOf<M>} P
 * @param {M} method @param {P} path @param {RequestOf<Operation<M, P>>} options
 * @returns {Promise<AnswerOf<Operation<M, P>>>}
 */
export async function call(method, path, options) {
  const { token, body, version } = options;
  const params = /** @type {{params?: Params}} */ (options).params ?? {};
  /** @type {Record<string, string>} */
  const headers = { accept: 'application/json' };
  for (const [name, value] of Object.entries(params.header ?? {})) {
    if (value !== undefined && value !== null) headers[name.toLowerCase()] = String(value);
  }
  if (version !== undefined && version !== null) headers['if-none-match'] = `"${version}"`;
  const response = await send(method, urlOf(path, params), { token, body, headers });
  const data = response.status === 304 ? null : await response.json().catch(() => null);
  return /** @type {AnswerOf<Operation<M, P>>} */ ({ status: response.status, version: versionOf(response), data });
}

/** Download what the operation `GET path` answers as the file `filename` (with the Bearer
 * `token`, which a plain link could not send).
 * @template {PathOf<'GET'>} P
 * @param {P} path @param {RequestOf<Operation<'GET', P>> & {filename: string}} options */
export async function download(path, options) {
  const params = /** @type {{params?: Params}} */ (options).params ?? {};
  const blob = await (await send('GET', urlOf(path, params), { token: options.token })).blob();
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = options.filename;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
}

const PREFIX = 'doko:';
/** @param {string} table */
const storageKey = (table) => `${PREFIX}${table}`;

/**
 * What this browser holds for a table: {seat, token} once seated, {host} for its host,
 * {invitation} for a private table's invitation code.
 * @typedef {{seat?: number, token?: string, host?: string, invitation?: string}} Held
 */

/**
 * What this browser holds for a table (see `Held`).
 * Kept in localStorage, per table: a seat and the host role survive closing the tab, a new
 * tab and a restart of the browser, until `forget`. Never sent but in a header.
 * @param {string} table @returns {Held}
 */
export function held(table) {
  try {
    return JSON.parse(localStorage.getItem(storageKey(table)) ?? '{}');
  } catch {
    return {};
  }
}

/** Keep more for a table (see `held`); null values forget.
 * @param {string} table @param {{[K in keyof Held]?: Held[K] | null}} more */
export function hold(table, more) {
  /** @type {Record<string, unknown>} */
  const now = { ...held(table), ...more };
  for (const key of Object.keys(now)) if (now[key] === null) delete now[key];
  localStorage.setItem(storageKey(table), JSON.stringify(now));
}

/** Forget everything this browser holds for a table. @param {string} table */
export const forget = (table) => localStorage.removeItem(storageKey(table));

/** The tables this browser holds something for (see `held`). */
export function heldTables() {
  return Object.keys(localStorage).filter((key) => key.startsWith(PREFIX)).map((key) => key.slice(PREFIX.length));
}

/** The link that invites to a private table: the code in the URL's fragment, which the
 * browser never sends to the service (nor to its logs, nor as a Referer).
 * @param {string} table @param {string} code */
export const invitationLink = (table, code) => `${location.origin}/t/${encodeURIComponent(table)}#invitation=${encodeURIComponent(code)}`;

/** The invitation code an invitation link (or the code itself) carries, or null.
 * @param {string} text */
export function invitationIn(text) {
  const code = text.trim().match(/(?:^|#|&)invitation=([^&\s]+)/)?.[1] ?? (/^[\w-]+$/.test(text.trim()) ? text.trim() : null);
  return code ? decodeURIComponent(code) : null;
}

/** Keep the invitation this page's link carries in its fragment (`#invitation=…`), then take
 * it out of the address bar: it is kept in this browser's storage, and not shown.
 * @param {string} table */
export function takeInvitation(table) {
  const code = location.hash.startsWith('#invitation=') ? invitationIn(location.hash) : null;
  if (!code) return;
  hold(table, { invitation: code });
  history.replaceState(null, '', location.pathname + location.search);
}

/** A JSON file the service serves besides the API's operations (as it is).
 * @param {string} path @returns {Promise<unknown>} */
const file = async (path) => (await send('GET', new URL(path, location.origin), { headers: { accept: 'application/json' } })).json();

/**
 * What the pages take from the server and never re-implement (`/web/meta.json`, not an
 * operation of the API): the rule texts by id, the names of the table stream's events.
 * @typedef {{rules: Record<string, string>, events: TableStreamData['type'][]}} Meta
 */

/** @type {Promise<Meta> | undefined} */
let metaAnswer;
/** The rule texts by id and the stream's event types (`/web/meta.json`), fetched once. */
export function meta() {
  metaAnswer ??= /** @type {Promise<Meta>} */ (file('/web/meta.json'));
  return metaAnswer;
}

/**
 * A schema of the OpenAPI document, with what the pages read of it.
 * @typedef {{type?: string, enum?: string[], properties?: Record<string, JsonSchema>,
 *   oneOf?: JsonSchema[], allOf?: JsonSchema[], $ref?: string, default?: unknown,
 *   description?: string, minimum?: number, maximum?: number,
 *   discriminator?: {propertyName: string, mapping: Record<string, string>}}} JsonSchema
 * @typedef {{paths: Record<string, Record<string, unknown>>, components: {schemas: Record<string, JsonSchema>}}} Document
 */

/** @type {Promise<Document> | undefined} */
let schemaAnswer;
/** The OpenAPI document, fetched once: what the API offers decides what a form shows. */
export function schema() {
  schemaAnswer ??= /** @type {Promise<Document>} */ (file('/schema/openapi.json'));
  return schemaAnswer;
}

/** How long to wait before opening a stream again that could not be opened. */
const REOPEN_MS = 2000;

/**
 * An event of a table's stream: its id (the table version), its type, its data.
 * @typedef {{id: number, type: TableStreamData['type'], data: TableStreamData}} StreamEvent
 * @typedef {import('../../clients/typescript/src/index.js').Schemas['TalkMessage']} TalkMessage
 * @typedef {'live' | 'reconnecting' | 'lost'} StreamStatus
 */

/**
 * Follow the Server-Sent Events stream of the table `table` (`…/events`) from the event
 * after `after`, as the holder of `token` (a seat token) or `secret` (a host token or an
 * invitation code), or of neither. A credential never goes in a URL: each time the stream is
 * opened, it is sent in the Authorization header for a stream ticket (`…/stream-tickets`:
 * it opens the stream once, within a minute), and the EventSource opens the stream with
 * `ticket` and `after` = the last id received. Without a credential the browser's
 * EventSource reconnects by itself after a lost connection and sends Last-Event-ID; with
 * one, a lost stream is opened again here at once with a new ticket (a ticket opens a
 * stream once). Either way the service resumes after the last event received: nothing is
 * missed and nothing comes twice. A stream that could not be reached is tried again after a
 * while ('reconnecting'); one the service refused, or that got no ticket, too, after saying
 * 'lost'. `onEvent({id, type, data})` gets each event of the `types` asked for;
 * `onStatus(status)` gets 'live' (each time the stream is (re)opened), 'reconnecting' or
 * 'lost'; `onTalk(message)`, if given, each table talk message (T5: `talk` messages carry no
 * id of their own and are sent live only: what was said while the stream was away is
 * `GET /tables/{table_id}/talk?after=`).
 * @param {string} table
 * @param {{token?: string, secret?: string, after: number, types: StreamEvent['type'][],
 *   onEvent: (event: StreamEvent) => void, onStatus: (status: StreamStatus) => void,
 *   onTalk?: (message: TalkMessage) => void}} options
 * @returns {{close(): void}}
 */
export function follow(table, { token, secret, ...options }) {
  const credential = token ?? secret;
  const at = { path: { table_id: table } };
  const ticket = async () => {
    const answer = await call('POST', '/tables/{table_id}/stream-tickets', { params: at, token: credential });
    return answer.data.ticket;
  };
  return followStream((after) => urlOf('/tables/{table_id}/events', { ...at, query: { after } }), credential ? ticket : null,
    /** @type {FollowOptions<StreamEvent>} */ (options));
}

/**
 * A message of a tournament's stream: its id (a global position), its type, its data.
 * @typedef {import('../../clients/typescript/src/index.js').Schemas['TournamentStreamData']} TournamentStreamData
 * @typedef {{id: number, type: TournamentStreamData['type'], data: TournamentStreamData}} TournamentMessage
 */

/**
 * Follow the Server-Sent Events stream of the tournament `tournament`
 * (`/tournaments/{tournament_id}/events`) as `follow` does a table's: as the holder of
 * `secret` (a private tournament's credential: the host token, a player's tournament
 * credential or the invitation code), each opening with a stream ticket obtained with it
 * (`/tournaments/{tournament_id}/stream-tickets`), or, without one (a public tournament), as
 * anyone.
 * @param {string} tournament
 * @param {{secret?: string} & FollowOptions<TournamentMessage>} options
 * @returns {{close(): void}}
 */
export function followTournament(tournament, { secret, ...options }) {
  const at = { path: { tournament_id: tournament } };
  const ticket = async () => {
    const answer = await call('POST', '/tournaments/{tournament_id}/stream-tickets', { params: at, token: secret });
    return answer.data.ticket;
  };
  return followStream((after) => urlOf('/tournaments/{tournament_id}/events', { ...at, query: { after } }), secret ? ticket : null,
    /** @type {FollowOptions<TournamentMessage>} */ (options));
}

/**
 * @template {{id: number, type: string, data: unknown}} E
 * @typedef {{after: number, types: E['type'][], onEvent: (event: E) => void,
 *   onStatus: (status: StreamStatus) => void, onTalk?: (message: TalkMessage) => void}} FollowOptions
 */

/**
 * A stream (see `follow`): `urlAfter(id)` its URL from the event after `id`; `ticket` gets a
 * stream ticket for the credential that opens it (null: the stream takes none).
 * @template {{id: number, type: string, data: unknown}} E
 * @param {(after: number) => URL} urlAfter @param {(() => Promise<string>) | null} ticket
 * @param {FollowOptions<E>} options
 * @returns {{close(): void}}
 */
function followStream(urlAfter, ticket, { after, types, onEvent, onStatus, onTalk }) {
  let last = after;
  /** @type {EventSource | null} */
  let source = null;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  let closed = false;
  /** @param {E['type']} type @param {number} id @param {string} data */
  const deliver = (type, id, data) => {
    if (!types.includes(type)) return;
    last = id;
    onEvent(/** @type {E} */ ({ id, type, data: JSON.parse(data) }));
  };
  const reopen = () => {
    onStatus('lost');
    timer = setTimeout(open, REOPEN_MS);
  };
  const open = async () => {
    const url = urlAfter(last);
    if (ticket) {
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
      if (!ticket && !refused) {
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
    if (onTalk) current.addEventListener('talk', (message) => onTalk(JSON.parse(message.data)));
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
