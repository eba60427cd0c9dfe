/**
 * Waiting and trying again, as the service asks (README "During a database outage"): wait
 * `Retry-After` seconds, then back off, doubling up to about 30 s.
 *
 * `retryingFetch` wraps a `fetch` for the request client: it sends a request again after a
 * network error, `429` (`rate_limited`, …), `502`/`503`/`504` (`database_unavailable`,
 * `too_many_connections`, a proxy's) and `409 idempotency_key_in_flight`, a bounded number of
 * times. Every POST and DELETE gets an `Idempotency-Key` (a random one, unless the caller
 * sent one), the same for each of its attempts, so that the service writes a command at most
 * once however many times it was sent (README "Idempotency keys"); GETs are safe to repeat.
 */

/** How the request client tries again. */
export interface RetryOptions {
  /** How many times a request is sent at most (default 5: the first and four retries). */
  attempts?: number;
  /** The first wait when the answer names none (ms, default 500); it doubles each time. */
  delayMs?: number;
  /** The longest wait (ms, default 30 000). An answer whose `Retry-After` asks for longer
   * is returned as it is. */
  maxDelayMs?: number;
  /** Told of each retry before its wait (for a log line). */
  onRetry?: (retry: RetryEvent) => void;
}

/** A retry about to be waited for. */
export interface RetryEvent {
  /** The attempt that failed (1: the first). */
  attempt: number;
  /** How long the client waits before the next (ms). */
  delayMs: number;
  method: string;
  url: string;
  /** The answer's status (0: no answer, a network error). */
  status: number;
  /** The problem's code when the answer carried one, or `network_error`. */
  code?: string;
}

export const DEFAULT_ATTEMPTS = 5;
export const DEFAULT_DELAY_MS = 500;
export const MAX_DELAY_MS = 30_000;

/** The wait an answer's `Retry-After` asks for (ms): delay-seconds or an HTTP date; undefined
 * without one (or one that cannot be read). */
export function retryAfterMs(response: Response, now: number = Date.now()): number | undefined {
  const value = response.headers.get("retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The back-off before attempt `failures + 1`: `delayMs` doubled for each failure after the
 * first, up to `maxDelayMs`, give or take a tenth (so that many clients do not come back at
 * once). */
export function backoffMs(failures: number, delayMs: number, maxDelayMs: number): number {
  const plain = Math.min(delayMs * 2 ** Math.max(0, failures - 1), maxDelayMs);
  return Math.round(plain * (0.9 + Math.random() * 0.2));
}

/** Wait `ms`; true when the wait ran out, false when `signal` aborted it first. */
export function sleep(ms: number, signal?: AbortSignal | null): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const done = (ranOut: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", aborted);
      resolve(ranOut);
    };
    const aborted = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal?.addEventListener("abort", aborted, { once: true });
  });
}

/** Statuses the service answers before doing anything (or a proxy in front of it answers for
 * it): worth trying again after a while. */
export function isTransient(status: number): boolean {
  return status === 429 || status === 502 || status === 503 || status === 504;
}

/** A fresh Idempotency-Key: 128 random bits as a UUID (crypto.getRandomValues, which a page
 * served over plain http has too, unlike crypto.randomUUID). */
export function idempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

type Fetch = (input: Request, init?: RequestInit) => Promise<Response>;

const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** The answer with its body read (so that a connection lost while reading it is a network
 * error here, where it can be retried), except a stream's, which is never read ahead. */
async function buffered(response: Response): Promise<Response> {
  if (response.body === null || NULL_BODY.has(response.status)) return response;
  if (response.headers.get("content-type")?.startsWith("text/event-stream")) return response;
  const body = await response.arrayBuffer();
  const copy = new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  Object.defineProperty(copy, "url", { value: response.url });
  Object.defineProperty(copy, "redirected", { value: response.redirected });
  return copy;
}

/** The wait before sending the request again after `response` (ms), or undefined when it is
 * not to be sent again. */
async function retryDelay(
  response: Response,
  repeatable: boolean,
  failures: number,
  delayMs: number,
  maxDelayMs: number,
): Promise<number | undefined> {
  let transient = isTransient(response.status);
  if (response.status === 409 && response.headers.has("retry-after")) {
    transient = (await codeOf(response)) === "idempotency_key_in_flight";
  } else if (transient && !repeatable && response.status !== 429) {
    // a POST or DELETE without a key answered 5xx may have been written (README "During a
    // database outage"), unless the edge refused its connection before reading it
    transient = (await codeOf(response)) === "too_many_connections";
  }
  if (!transient) return undefined;
  const asked = retryAfterMs(response);
  if (asked !== undefined && asked > maxDelayMs) return undefined;
  return Math.max(asked ?? 0, backoffMs(failures, delayMs, maxDelayMs));
}

async function codeOf(response: Response): Promise<string | undefined> {
  const body = (await response.clone().json().catch(() => null)) as { code?: unknown } | null;
  return typeof body?.code === "string" ? body.code : undefined;
}

/**
 * `fetch` that sends a request again after a network error or a transient answer (see the
 * module's comment), up to `attempts` times in all, waiting `Retry-After` or the back-off
 * between attempts. It resolves to the last answer, or rejects with the last network error
 * (or the reason of the request's aborted signal): the request client turns that into a value.
 */
export function retryingFetch(inner: Fetch, options: RetryOptions | false = {}, keys = true): Fetch {
  const attempts = options === false ? 1 : Math.max(1, options.attempts ?? DEFAULT_ATTEMPTS);
  const delayMs = (options !== false && options.delayMs) || DEFAULT_DELAY_MS;
  const maxDelayMs = (options !== false && options.maxDelayMs) || MAX_DELAY_MS;
  const onRetry = options === false ? undefined : options.onRetry;
  return async (input: Request, init?: RequestInit): Promise<Response> => {
    let request = input;
    const method = request.method.toUpperCase();
    if (keys && (method === "POST" || method === "DELETE") && !request.headers.has("idempotency-key")) {
      const headers = new Headers(request.headers);
      headers.set("idempotency-key", idempotencyKey());
      request = new Request(request, { headers });
    }
    // a POST or DELETE without a key that got no answer may have been written: not sent again
    const repeatable = method === "GET" || method === "HEAD" || request.headers.has("idempotency-key");
    const signal = request.signal;
    for (let attempt = 1; ; attempt++) {
      let response: Response;
      try {
        response = await buffered(await inner(attempt < attempts ? request.clone() : request, init));
      } catch (error) {
        if (signal.aborted || attempt >= attempts || !repeatable) throw error;
        const delay = backoffMs(attempt, delayMs, maxDelayMs);
        onRetry?.({ attempt, delayMs: delay, method, url: request.url, status: 0, code: "network_error" });
        if (!(await sleep(delay, signal))) throw signal.reason ?? error;
        continue;
      }
      const delay = attempt < attempts ? await retryDelay(response, repeatable, attempt, delayMs, maxDelayMs) : undefined;
      if (delay === undefined) return response;
      const code = await codeOf(response);
      onRetry?.({ attempt, delayMs: delay, method, url: request.url, status: response.status, ...(code ? { code } : {}) });
      if (!(await sleep(delay, signal))) throw signal.reason ?? new DOMException("aborted", "AbortError");
    }
  };
}
