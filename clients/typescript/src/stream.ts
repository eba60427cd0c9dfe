/**
 * A typed reader of doko's Server-Sent Events streams that resumes by itself and never
 * throws.
 *
 * A stream is read with `fetch`, parsed as text/event-stream, and each message's `data`
 * decoded as JSON of the stream's schema. A stream read with a credential (a seat token, the
 * host token, an invitation code, a tournament credential) opens each connection with a
 * fresh single-use **stream ticket**: `POST …/stream-tickets` with the credential as the
 * Bearer token, then `GET …/events?ticket=…&after=<last id>`, so the credential never goes in
 * a URL and a reconnection never reuses a spent ticket. A stream without a credential (a
 * public table or tournament, the feed) is opened as it is, with `after`.
 *
 * When the connection drops, the server ends it, or nothing (not even a heartbeat: the
 * service sends one every 15 s) arrives for `idleMs`, the reader connects again after the
 * last message it yielded, so no message is lost or repeated. It waits `retryMs` (doubling
 * with each failure in a row, up to `maxDelayMs`) or what the answer's `Retry-After` asks
 * for after `429` (`too_many_streams`, `rate_limited`), `502`-`504` (`database_unavailable`,
 * …) and a spent or late ticket (`401 ticket_invalid`, `ticket_expired`: it gets a new one).
 *
 * The reading ends with a value, never an exception (`stream.end`, also the generator's
 * return value): `closed` (the caller stopped: `break`, `close()`, its `signal`),
 * `refused` (any other answer of 400 or more: an unknown table, a credential that no longer
 * opens it, e.g. `401 unauthorized` once the seat's player left, T2.2), `failed` (`attempts`
 * failures in a row, or a message that is not JSON).
 */

import {
  clientProblem,
  problemOfError,
  readProblem,
  type AnyProblem,
  type ClientProblem,
  type Problem,
} from "./problem.js";
import { backoffMs, isTransient, MAX_DELAY_MS, retryAfterMs, sleep } from "./retry.js";

/**
 * The names a stream message's `event` takes: its data's `type` (a table's or a tournament's
 * stream: `deal_dealt`, `card_played`, …, `standings`), or its data's event's `type` (the
 * feed), as the document lists them; a plain string for data of no such shape.
 */
export type EventName<T> = T extends { type: infer E extends string }
  ? E
  : T extends { event: { type: infer E extends string } }
    ? E
    : string;

export interface StreamMessage<T> {
  /** The event's type (`deal_dealt`, `card_played`, …): the data's `type` (`EventName`). */
  event: EventName<T>;
  /** A table version (a table's stream: every one, for every viewer), a global position (the
   * feed) or the stream's message number (a tournament's stream). A table talk message
   * (`event` `talk`, T5) has no id of its own: it carries the last id before it (NaN before
   * any), and a resumed stream leaves out the talk it missed (`getTableTalk` with `after`). */
  id: number;
  data: T;
}

/** How a stream ended. */
export type StreamEnd =
  /** The caller stopped it: `break` (or `return()`), `close()`, or its `signal`. */
  | { reason: "closed" }
  /** The service refused to open it (a 4xx problem other than a spent ticket): an unknown
   * table or tournament (404), a credential that does not (or no longer) open it (401, 403),
   * a malformed request (400). Opening it again the same way gets the same answer. */
  | { reason: "refused"; problem: Problem }
  /** `attempts` connections failed in a row (the last one's problem: `network_error`,
   * `rate_limited`, `database_unavailable`, …), or a message could not be read
   * (`invalid_answer`). */
  | { reason: "failed"; problem: AnyProblem };

/** A connection about to be tried again. */
export interface StreamRetryEvent {
  /** Failed connections in a row so far (1: the last one). */
  failures: number;
  /** How long the reader waits before the next (ms). */
  delayMs: number;
  /** Why: the answer's problem or the client's (`network_error`; the service ending the
   * stream is a `network_error` too, with its detail). */
  problem: AnyProblem;
}

export interface StreamOptions {
  /** Resume after this id: the last message handled (else from the start). */
  after?: number | string;
  /** @deprecated The same as `after`. */
  lastEventId?: number;
  /** More headers for every request of the stream (never a credential: see `token` of
   * `tableEvents`; `readStream` sends them as they are). */
  headers?: Record<string, string>;
  /** Aborting it closes the stream (its end: `closed`). */
  signal?: AbortSignal;
  /** The first wait before connecting again (ms, default 500); it doubles with each failure
   * in a row, up to `maxDelayMs`. A `Retry-After` is honoured whatever its length. */
  retryMs?: number;
  /** The longest back-off (ms, default 30 000). */
  maxDelayMs?: number;
  /** Give up after this many failed connections in a row (default: never; a bot follows its
   * table through a restart of the service). */
  attempts?: number;
  /** Connect again when nothing arrived for this long (ms, default 45 000: three of the
   * service's heartbeats). */
  idleMs?: number;
  /** The `fetch` to read with (default: the global one). */
  fetch?: typeof fetch;
  /** Told of each connection about to be tried again (for a log line). */
  onRetry?: (retry: StreamRetryEvent) => void;
}

/**
 * A stream being read: an async generator of its messages (`for await`), which returns its
 * end, with `end` to read after the loop, the id to resume after and `close()`.
 */
export type EventStream<T> = AsyncGenerator<StreamMessage<T>, StreamEnd, undefined> & {
  /** How the stream ended; undefined while it runs. */
  readonly end: StreamEnd | undefined;
  /** The id of the last message yielded (as the service wrote it): `after` for a new stream. */
  readonly lastEventId: string | undefined;
  /** Stop reading (a pending `next()` resolves done; the end is `closed`). */
  close(): void;
};

/** Where a stream is read. */
export interface StreamSource {
  /** The stream's URL (`…/events`, `/feed`). */
  url: string;
  /** Each connection opens with a new ticket from `url` (POST), for which `credential` is
   * sent as the Bearer token. */
  tickets?: { url: string; credential: string };
}

interface Raw {
  event: string;
  id: string | undefined;
  data: string[];
}

type Parsed = { event: string; id: string | undefined; data: string };

/** The messages of one text/event-stream body; comment lines (heartbeats) are skipped. */
export async function* parseEventStream(body: ReadableStream<Uint8Array>): AsyncGenerator<Parsed> {
  yield* messagesOf(chunksOf(body, Infinity));
}

class Idle extends Error {
  constructor(ms: number) {
    super(`nothing arrived for ${ms} ms`);
    this.name = "Idle";
  }
}

/** The chunks of `body`; an `Idle` error when none arrives for `idleMs`. */
async function* chunksOf(body: ReadableStream<Uint8Array>, idleMs: number): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  try {
    for (;;) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const idle = new Promise<never>((_, reject) => {
        if (Number.isFinite(idleMs)) timer = setTimeout(() => reject(new Idle(idleMs)), idleMs);
      });
      try {
        const read = await Promise.race([reader.read(), idle]);
        if (read.done) return;
        yield read.value;
      } finally {
        clearTimeout(timer);
      }
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
}

async function* messagesOf(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Parsed> {
  const decoder = new TextDecoder();
  let buffer = "";
  let raw: Raw = { event: "message", id: undefined, data: [] };
  for await (const chunk of chunks) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.search(/\r\n|\r|\n/)) >= 0) {
      if (buffer[end] === "\r" && end === buffer.length - 1) break; // a CR whose LF may follow
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + (buffer.startsWith("\r\n", end) ? 2 : 1));
      if (line === "") {
        if (raw.data.length > 0) {
          yield { event: raw.event, id: raw.id, data: raw.data.join("\n") };
        }
        raw = { event: "message", id: raw.id, data: [] };
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") raw.event = value;
      else if (field === "data") raw.data.push(value);
      else if (field === "id" && !value.includes("\0")) raw.id = value;
    }
  }
}

/** What opening one connection came to. */
type Opened =
  | { kind: "open"; body: ReadableStream<Uint8Array>; connection: AbortController }
  | { kind: "refused"; problem: Problem }
  | { kind: "retry"; problem: AnyProblem; retryAfterMs?: number };

const TICKET_SPENT = new Set(["ticket_invalid", "ticket_expired"]);

/** A refusal, or a failure worth trying again: transient statuses, any 5xx, a spent or late
 * ticket, a request timeout. */
async function refusal(response: Response): Promise<Opened> {
  const problem = await readProblem(response);
  const again =
    isTransient(response.status) ||
    response.status >= 500 ||
    response.status === 408 ||
    (response.status === 401 && TICKET_SPENT.has(problem.code));
  if (!again) return { kind: "refused", problem };
  const wait = retryAfterMs(response);
  return wait === undefined ? { kind: "retry", problem } : { kind: "retry", problem, retryAfterMs: wait };
}

function linked(signal: AbortSignal): AbortController {
  const controller = new AbortController();
  if (signal.aborted) controller.abort(signal.reason);
  else signal.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
  return controller;
}

function withoutAuthorization(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== "authorization"));
}

async function ticketFor(
  tickets: { url: string; credential: string },
  get: typeof fetch,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<{ kind: "ticket"; ticket: string } | Exclude<Opened, { kind: "open" }>> {
  let response: Response;
  try {
    response = await get(tickets.url, {
      method: "POST",
      headers: { ...withoutAuthorization(headers), accept: "application/json", authorization: `Bearer ${tickets.credential}` },
      signal,
    });
  } catch (error) {
    return { kind: "retry", problem: problemOfError(error, signal) };
  }
  if (response.status !== 200 && response.status !== 201) return (await refusal(response)) as Exclude<Opened, { kind: "open" }>;
  try {
    const { ticket } = (await response.json()) as { ticket?: unknown };
    if (typeof ticket === "string" && ticket) return { kind: "ticket", ticket };
    return { kind: "retry", problem: clientProblem("invalid_answer", undefined, "a stream ticket answer without `ticket`") };
  } catch (error) {
    return { kind: "retry", problem: problemOfError(error, signal) };
  }
}

async function open(
  source: StreamSource,
  options: StreamOptions,
  after: string | undefined,
  signal: AbortSignal,
): Promise<Opened> {
  const get = options.fetch ?? globalThis.fetch;
  const url = new URL(source.url);
  if (after !== undefined) url.searchParams.set("after", after);
  let headers: Record<string, string> = { ...options.headers };
  if (source.tickets) {
    headers = withoutAuthorization(headers);
    const got = await ticketFor(source.tickets, get, headers, signal);
    if (got.kind !== "ticket") return got;
    url.searchParams.set("ticket", got.ticket);
  }
  const connection = linked(signal);
  let response: Response;
  try {
    response = await get(url, { headers: { ...headers, accept: "text/event-stream" }, signal: connection.signal });
  } catch (error) {
    return { kind: "retry", problem: problemOfError(error, signal) };
  }
  if (response.status === 200 && response.body !== null) return { kind: "open", body: response.body, connection };
  if (response.status === 200) return { kind: "retry", problem: clientProblem("invalid_answer", undefined, "a stream without a body") };
  return refusal(response);
}

interface State {
  end: StreamEnd | undefined;
  last: string | undefined;
  readonly closing: AbortController;
}

const CLOSED: StreamEnd = { reason: "closed" };

async function* follow<T>(
  source: StreamSource,
  options: StreamOptions,
  state: State,
): AsyncGenerator<StreamMessage<T>, StreamEnd, undefined> {
  const retryMs = options.retryMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? MAX_DELAY_MS;
  const attempts = options.attempts ?? Infinity;
  const idleMs = options.idleMs ?? 45_000;
  const closing = state.closing.signal;
  const finish = (end: StreamEnd): StreamEnd => (state.end = closing.aborted ? CLOSED : end);
  let failures = 0;
  let wait = 0;
  try {
    for (;;) {
      if (wait > 0 && !(await sleep(wait, closing))) return finish(CLOSED);
      if (closing.aborted) return finish(CLOSED);
      const opened = await open(source, options, state.last, closing);
      if (closing.aborted) return finish(CLOSED);
      let problem: AnyProblem;
      let asked: number | undefined;
      if (opened.kind === "refused") return finish({ reason: "refused", problem: opened.problem });
      if (opened.kind === "retry") {
        problem = opened.problem;
        asked = opened.retryAfterMs;
      } else {
        const { healthy, failure, invalid } = yield* messages<T>(opened.body, idleMs, state);
        opened.connection.abort();
        if (closing.aborted) return finish(CLOSED);
        if (invalid) return finish({ reason: "failed", problem: invalid });
        if (healthy) failures = 0;
        problem = failure ?? clientProblem("network_error", undefined, "the service ended the stream");
      }
      failures += 1;
      if (failures >= attempts) return finish({ reason: "failed", problem });
      wait = Math.max(asked ?? 0, backoffMs(failures, retryMs, maxDelayMs));
      options.onRetry?.({ failures, delayMs: wait, problem });
    }
  } finally {
    state.end ??= CLOSED;
    state.closing.abort();
  }
}

/** The messages of one connection, until it ends: whether anything arrived (a healthy
 * connection resets the back-off), the error that ended it, or a message that was not JSON. */
async function* messages<T>(
  body: ReadableStream<Uint8Array>,
  idleMs: number,
  state: State,
): AsyncGenerator<StreamMessage<T>, { healthy: boolean; failure?: ClientProblem; invalid?: ClientProblem }, undefined> {
  let healthy = false;
  const chunks = chunksOf(body, idleMs);
  const seen = (async function* () {
    for await (const chunk of chunks) {
      healthy = true;
      yield chunk;
    }
  })();
  const parsed = messagesOf(seen);
  try {
    for (;;) {
      let next: IteratorResult<Parsed>;
      try {
        next = await parsed.next();
      } catch (error) {
        return { healthy, failure: problemOfError(error, state.closing.signal) };
      }
      if (next.done) return { healthy };
      const { event, id, data } = next.value;
      let decoded: T;
      try {
        decoded = JSON.parse(data) as T;
      } catch (error) {
        return { healthy, invalid: clientProblem("invalid_answer", error, `message ${id ?? "?"} is not JSON`) };
      }
      if (id !== undefined) state.last = id;
      yield { event: event as EventName<T>, id: Number(id), data: decoded };
    }
  } finally {
    await parsed.return(undefined).catch(() => undefined);
  }
}

/** Read the stream of `source` (see the module's comment). */
export function openStream<T>(source: StreamSource, options: StreamOptions = {}): EventStream<T> {
  const closing = new AbortController();
  const { signal } = options;
  if (signal?.aborted) closing.abort();
  else signal?.addEventListener("abort", () => closing.abort(), { once: true });
  const after = options.after ?? options.lastEventId;
  const state: State = { end: undefined, last: after === undefined ? undefined : String(after), closing };
  const generator = follow<T>(source, options, state);
  return Object.defineProperties(generator, {
    end: { get: () => state.end ?? (closing.signal.aborted ? CLOSED : undefined) },
    lastEventId: { get: () => state.last },
    close: { value: () => closing.abort() },
  }) as EventStream<T>;
}

/** Every message of the stream at `url` (no ticket: `headers` are sent as they are), resumed
 * across dropped connections with `after`. */
export function readStream<T>(url: string, options: StreamOptions = {}): EventStream<T> {
  return openStream<T>({ url }, options);
}
