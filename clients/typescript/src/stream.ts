/**
 * A typed reader of doko's Server-Sent Events streams that resumes.
 *
 * The stream is read with `fetch` (so a credential goes in the `Authorization` header,
 * never in the URL), parsed as text/event-stream, and each message's `data` decoded as
 * JSON of the stream's schema. When the connection drops or the server ends it, the
 * reader connects again with `Last-Event-ID` (the id of the last message it yielded),
 * waiting `retryMs` and doubling up to 15 s, so no message is lost or repeated. An answer
 * that is not 200 (a problem) ends the reading with a `ProblemError`.
 */

import { ProblemError, type Problem } from "./problem.js";

export interface StreamMessage<T> {
  /** The event's type (`deal_dealt`, `card_played`, …): the data's `type`. */
  event: string;
  /** A table version (table streams: every one, for every viewer), a global position (the
   * feed) or the stream's message number (a tournament's stream). */
  id: number;
  data: T;
}

export interface StreamOptions {
  /** Resume after this id (else from the start). */
  lastEventId?: number;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** The first wait before connecting again (ms); it doubles up to 15 s. */
  retryMs?: number;
  fetch?: typeof fetch;
}

interface Raw {
  event: string;
  id: string | undefined;
  data: string[];
}

/** The messages of one text/event-stream body; comment lines (heartbeats) are skipped. */
export async function* parseEventStream(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<{ event: string; id: string | undefined; data: string }> {
  const reader = body.getReader();
  try {
    yield* messagesOf(reader);
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

async function* messagesOf(
  reader: ReadableStreamDefaultReader<Uint8Array>,
): AsyncGenerator<{ event: string; id: string | undefined; data: string }> {
  const decoder = new TextDecoder();
  let buffer = "";
  let raw: Raw = { event: "message", id: undefined, data: [] };
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    buffer += decoder.decode(read.value, { stream: true });
    let end: number;
    while ((end = buffer.search(/\r\n|\r|\n/)) >= 0) {
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
      else if (field === "id") raw.id = value;
    }
  }
}

const MAX_RETRY_MS = 15_000;

/** Every message of the stream at `url`, resumed across dropped connections. */
export async function* readStream<T>(
  url: string,
  options: StreamOptions = {},
): AsyncGenerator<StreamMessage<T>> {
  const get = options.fetch ?? fetch;
  let last = options.lastEventId;
  let wait = options.retryMs ?? 500;
  while (!options.signal?.aborted) {
    const headers: Record<string, string> = { accept: "text/event-stream", ...options.headers };
    if (last !== undefined) headers["last-event-id"] = String(last);
    let response: Response;
    try {
      response = await get(url, { headers, ...(options.signal ? { signal: options.signal } : {}) });
    } catch (error) {
      if (options.signal?.aborted) return;
      await pause(wait, options.signal);
      wait = Math.min(wait * 2, MAX_RETRY_MS);
      continue;
    }
    if (response.status !== 200 || response.body === null) {
      throw new ProblemError((await response.json()) as Problem);
    }
    wait = options.retryMs ?? 500;
    try {
      for await (const message of parseEventStream(response.body)) {
        const id = Number(message.id);
        yield { event: message.event, id, data: JSON.parse(message.data) as T };
        last = id;
      }
    } catch (error) {
      if (options.signal?.aborted) return;
    }
    await pause(wait, options.signal);
  }
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
