/**
 * Problems: what the service refuses with (RFC 9457, `application/problem+json`, with a
 * stable `code` of the document's `ProblemCode`), and the few the client makes itself when
 * there is no answer to read. Both are values with a `code` to switch on: nothing here is
 * thrown by the client or its streams.
 */

import type { components } from "./schema.js";

/** An RFC 9457 problem as doko answers it (application/problem+json). */
export type Problem = components["schemas"]["Problem"];

/** The codes of the problems the client makes itself (status 0: no answer to read). */
export const clientProblemCodeValues = ["network_error", "aborted", "invalid_answer"] as const;

/**
 * - `network_error`: the service did not answer (no connection, reset, DNS, a stream silent
 *   for longer than its heartbeats allow), after the retries the options allow;
 * - `aborted`: the caller's `signal` aborted the request (also an `AbortSignal.timeout`);
 * - `invalid_answer`: an answer that could not be read as the document says (not JSON).
 */
export type ClientProblemCode = (typeof clientProblemCodeValues)[number];

/** A problem made by the client, shaped like the service's so that one `switch (error.code)`
 * handles both. */
export interface ClientProblem {
  type: `urn:doko:client:${ClientProblemCode}`;
  title: string;
  /** 0: no HTTP answer. */
  status: 0;
  code: ClientProblemCode;
  detail: string;
  rule?: null;
  errors?: null;
  instance?: null;
  /** What the runtime reported (a `TypeError: fetch failed` and its cause, …), for logs. */
  cause?: unknown;
}

/** Any problem a call or a stream can end with. */
export type AnyProblem = Problem | ClientProblem;

/** A refused request, as an Error for code that prefers to throw (the client never does). */
export class ProblemError extends Error {
  readonly problem: AnyProblem;

  constructor(problem: AnyProblem) {
    super(`${problem.status} ${problem.code}${problem.rule ? ` (${problem.rule})` : ""}: ${problem.detail ?? problem.title}`);
    this.name = "ProblemError";
    this.problem = problem;
  }
}

const TITLES: Record<ClientProblemCode, string> = {
  network_error: "the service did not answer",
  aborted: "aborted",
  invalid_answer: "the answer could not be read",
};

/** A client problem of `code`, with what `cause` says as its detail. */
export function clientProblem(code: ClientProblemCode, cause?: unknown, detail?: string): ClientProblem {
  const problem: ClientProblem = {
    type: `urn:doko:client:${code}`,
    title: TITLES[code],
    status: 0,
    code,
    detail: detail ?? describe(cause) ?? TITLES[code],
  };
  if (cause !== undefined) problem.cause = cause;
  return problem;
}

/** The client problem of an error a `fetch` (or reading its body) threw. */
export function problemOfError(error: unknown, signal?: AbortSignal | null): ClientProblem {
  const name = error instanceof Error ? error.name : undefined;
  if (signal?.aborted || name === "AbortError" || name === "TimeoutError") return clientProblem("aborted", error);
  if (error instanceof SyntaxError) return clientProblem("invalid_answer", error);
  return clientProblem("network_error", error);
}

function describe(cause: unknown): string | undefined {
  if (!(cause instanceof Error)) return cause === undefined ? undefined : String(cause);
  const inner = (cause as Error & { cause?: unknown }).cause;
  const why = inner instanceof Error ? `: ${inner.message}` : "";
  return `${cause.message}${why}`;
}

/** Whether `value` is a problem the service sent (an object with a string `code`). */
export function isProblem(value: unknown): value is Problem {
  return typeof value === "object" && value !== null && typeof (value as { code?: unknown }).code === "string";
}

/** The problem of an error answer (status 400 or more): its body when it is one, else an
 * `http_error` problem with its status (a proxy's HTML page, an empty body). */
export function problemOfAnswer(response: Response, body: unknown): Problem {
  if (isProblem(body)) return body;
  const text = typeof body === "string" ? body.slice(0, 200) : "";
  return {
    type: "about:blank",
    title: response.statusText || "HTTP error",
    status: response.status,
    code: "http_error",
    detail: text || `${response.status} ${response.statusText}`.trim(),
  };
}

/** The problem of an error answer, reading its body (a body that cannot be read: `http_error`). */
export async function readProblem(response: Response): Promise<Problem> {
  const text = await response.text().catch(() => "");
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: an http_error with the text
  }
  return problemOfAnswer(response, body);
}
