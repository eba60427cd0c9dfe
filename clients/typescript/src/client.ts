/**
 * The request client: openapi-fetch over the document's `paths` (a wrong path, parameter,
 * body or card is a compile error), with the credential as the Bearer token, retries
 * (`retry.ts`: network errors, 429, 502-504 and a key in flight, waiting Retry-After, each
 * POST and DELETE with an Idempotency-Key), and no exception: every call resolves to
 * `{data, response}` or `{error, response}`, where `error` is the service's problem or, when
 * there was no answer to read, a client problem (`network_error`, `aborted`,
 * `invalid_answer`) with `response` undefined.
 */

import createClient, { type Client, type ClientOptions, type FetchResponse, type MaybeOptionalInit, type Middleware } from "openapi-fetch";

import { problemOfAnswer, problemOfError, type ClientProblem } from "./problem.js";
import { retryingFetch, type RetryOptions } from "./retry.js";
import type { paths } from "./schema.js";

type Lower = "get" | "post" | "delete";
type Media = `${string}/${string}`;

/** The paths with an operation of `method` (lower case, as the document's `paths` spell it). */
export type PathsWith<M extends Lower> = {
  [P in keyof paths]: paths[P] extends { [K in M]: object } ? P : never;
}[keyof paths];

type RequiredKeysOf<T> = { [K in keyof T]: {} extends Pick<T, K> ? never : K }[keyof T];
type InitArgs<Init> =
  RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];

/** A call that got no answer to read: its client problem, and no response. */
export interface NoAnswer {
  data?: never;
  error: ClientProblem;
  response?: undefined;
}

/** What a call resolves to: the answer's data, its problem, or a client problem (never a
 * rejection). */
export type DokoResult<O, Init> = (O extends Record<string | number, any> ? FetchResponse<O, Init, Media> : never) | NoAnswer;

/** A typed method of the client (`GET`, `POST`, `DELETE`). */
export type DokoMethod<M extends Lower> = <P extends PathsWith<M>, Init extends MaybeOptionalInit<paths[P], M>>(
  url: P,
  ...init: InitArgs<Init>
) => Promise<DokoResult<paths[P][M], Init>>;

/** The typed client of every operation (see `createDokoClient`). */
export interface DokoClient {
  GET: DokoMethod<"get">;
  POST: DokoMethod<"post">;
  DELETE: DokoMethod<"delete">;
  /** Add openapi-fetch middleware (`onRequest`, `onResponse`, `onError`). */
  use(...middleware: Middleware[]): void;
  eject(...middleware: Middleware[]): void;
  /** The openapi-fetch client underneath: it retries as this one does, but rejects when there
   * is no answer. */
  readonly raw: Client<paths>;
}

export interface DokoClientOptions extends Omit<ClientOptions, "baseUrl" | "fetch"> {
  /** Sent as the Bearer token of every request: a seat token, the host token, a private
   * table's invitation code or a tournament credential (the document's `seatToken`,
   * `hostToken`, `invitationCode`; each operation's `security` says which it takes). */
  token?: string;
  /** How to try again (`false`: send every request once). Default: 5 attempts, waiting
   * Retry-After or 0.5 s doubling, up to 30 s. */
  retry?: RetryOptions | false;
  /** Whether each POST and DELETE without an `Idempotency-Key` gets a random one (default
   * true). Without a key, a POST or DELETE is sent again only after an answer that says it
   * was not read (429, 503 `too_many_connections`), never after a network error or another
   * 5xx: it may have been written. */
  idempotencyKeys?: boolean;
  /** The `fetch` to send with (default: the global one). */
  fetch?: (input: Request, init?: RequestInit) => Promise<Response>;
}

type Headers_ = NonNullable<ClientOptions["headers"]>;

/** The client's headers with the token as the Bearer credential (unless they carry one). */
function withToken(headers: Headers_ | undefined, token: string | undefined): Headers_ | undefined {
  if (!token) return headers;
  if (headers instanceof Headers || Array.isArray(headers)) {
    const merged = new Headers(headers);
    if (!merged.has("authorization")) merged.set("authorization", `Bearer ${token}`);
    return merged;
  }
  return { authorization: `Bearer ${token}`, ...headers };
}

/** A typed client of every operation; every call resolves (see the module's comment). */
export function createDokoClient(baseUrl: string, options: DokoClientOptions = {}): DokoClient {
  const { token, headers, retry, idempotencyKeys = true, fetch: inner, ...rest } = options;
  const send = inner ?? ((request: Request, init?: RequestInit) => globalThis.fetch(request, init));
  const fetch = retryingFetch(send, retry ?? {}, idempotencyKeys);
  const merged = withToken(headers, token);
  const raw = createClient<paths>({ baseUrl, ...(merged ? { headers: merged } : {}), fetch, ...rest });
  return {
    GET: settled(raw, "GET") as DokoMethod<"get">,
    POST: settled(raw, "POST") as DokoMethod<"post">,
    DELETE: settled(raw, "DELETE") as DokoMethod<"delete">,
    use: (...middleware) => raw.use(...middleware),
    eject: (...middleware) => raw.eject(...middleware),
    raw,
  };
}

type Call = (url: string, init?: Record<string, unknown>) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

function settled(raw: Client<paths>, method: "GET" | "POST" | "DELETE") {
  const call = raw[method] as unknown as Call;
  return async (url: string, init?: Record<string, unknown>) => {
    try {
      const result = await call(url, init);
      if (result.response.status >= 400 && result.data === undefined) {
        return { error: problemOfAnswer(result.response, result.error), response: result.response };
      }
      return result;
    } catch (error) {
      return { error: problemOfError(error, init?.["signal"] as AbortSignal | undefined), response: undefined };
    }
  };
}
