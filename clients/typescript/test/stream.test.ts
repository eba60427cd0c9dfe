/**
 * The stream reader and the request client against a tiny local HTTP server that plays the
 * service's part: stream tickets (single use), `429`/`503` with `Retry-After`, a stream the
 * server ends, a silent connection, a port nobody listens on. No doko service is needed.
 */

import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";

import { createDokoClient, feed, tableEvents, type RetryEvent, type StreamRetryEvent } from "../src/index.js";

type Handler = (request: IncomingMessage, response: ServerResponse, url: URL) => void;

async function serve(handler: Handler): Promise<{ base: string; server: Server }> {
  const server = createServer((request, response) => handler(request, response, new URL(request.url ?? "/", "http://x")));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

function problem(response: ServerResponse, status: number, code: string, retryAfter?: number): void {
  const headers: Record<string, string> = { "content-type": "application/problem+json" };
  if (retryAfter !== undefined) headers["retry-after"] = String(retryAfter);
  response.writeHead(status, headers);
  response.end(JSON.stringify({ type: `urn:doko:problem:${code}`, title: code, status, code }));
}

function event(response: ServerResponse, id: number, type: string): void {
  response.write(`id: ${id}\nevent: ${type}\ndata: {"type":"${type}","version":${id}}\n\n`);
}

test("a seat's stream gets a fresh ticket per connection, waits Retry-After, and resumes after the last id", async () => {
  const issued = new Map<string, boolean>(); // ticket → used
  const opened: { ticket: string | null; after: string | null; authorized: boolean }[] = [];
  let ticketRequests = 0;
  let gets = 0;
  const { base, server } = await serve((request, response, url) => {
    if (request.method === "POST" && url.pathname === "/tables/t1/stream-tickets") {
      assert.equal(request.headers.authorization, "Bearer seat-token");
      ticketRequests += 1;
      if (ticketRequests === 1) return problem(response, 429, "too_many_streams", 1);
      const ticket = `tk${ticketRequests}`;
      issued.set(ticket, false);
      response.writeHead(201, { "content-type": "application/json" });
      response.end(JSON.stringify({ ticket, expires_at: new Date(Date.now() + 60_000).toISOString(), seconds: 60 }));
      return;
    }
    assert.equal(url.pathname, "/tables/t1/events");
    const ticket = url.searchParams.get("ticket");
    opened.push({ ticket, after: url.searchParams.get("after"), authorized: "authorization" in request.headers });
    if (ticket === null || issued.get(ticket) !== false) return problem(response, 401, "ticket_invalid");
    gets += 1;
    if (gets === 2) return problem(response, 503, "database_unavailable", 1); // before using the ticket
    issued.set(ticket, true);
    response.writeHead(200, { "content-type": "text/event-stream" });
    if (gets === 1) {
      event(response, 1, "table_created");
      event(response, 2, "seat_taken");
      response.end(": the server ends the stream\n\n");
    } else {
      event(response, 3, "seat_taken");
      event(response, 4, "seat_taken"); // and stays open
    }
  });
  try {
    const retries: StreamRetryEvent[] = [];
    const started = Date.now();
    const stream = tableEvents(base, "t1", { token: "seat-token", retryMs: 10, onRetry: (retry) => retries.push(retry) });
    const ids: number[] = [];
    for await (const message of stream) {
      assert.equal(message.event, message.data.type);
      ids.push(message.id);
      if (message.id === 4) break;
    }
    const elapsed = Date.now() - started;
    assert.deepEqual(ids, [1, 2, 3, 4], "no gap, no repeat");
    assert.deepEqual(stream.end, { reason: "closed" });
    assert.equal(stream.lastEventId, "4");
    assert.deepEqual(
      retries.map(({ problem }) => problem.code),
      ["too_many_streams", "network_error", "database_unavailable"],
    );
    assert.ok(retries[0] && retries[0].delayMs >= 1000, "Retry-After: 1 honoured after the 429");
    assert.ok(retries[2] && retries[2].delayMs >= 1000, "and after the 503");
    assert.ok(elapsed >= 2000, `waited ${elapsed} ms`);
    assert.deepEqual(opened, [
      { ticket: "tk2", after: null, authorized: false },
      { ticket: "tk3", after: "2", authorized: false },
      { ticket: "tk4", after: "2", authorized: false },
    ]);
    assert.equal(ticketRequests, 4, "one ticket per connection");
  } finally {
    await stop(server);
  }
});

test("a stream the service refuses ends with its problem as a value, without throwing", async () => {
  const { base, server } = await serve((request, response) => {
    if (request.method === "POST") return problem(response, 401, "unauthorized");
    return problem(response, 404, "table_not_found");
  });
  try {
    const seat = tableEvents(base, "t1", { token: "a-token-of-a-player-who-left" });
    for await (const _ of seat) assert.fail("no message");
    assert.equal(seat.end?.reason, "refused");
    assert.equal(seat.end?.reason === "refused" && seat.end.problem.code, "unauthorized");
    const anyone = tableEvents(base, "t1");
    const end = await anyone.next();
    assert.deepEqual(end.done && end.value.reason, "refused", "the generator returns the end too");
  } finally {
    await stop(server);
  }
});

test("a silent connection is dropped after idleMs and the stream resumes", async () => {
  let connections = 0;
  const { base, server } = await serve((_, response, url) => {
    connections += 1;
    response.writeHead(200, { "content-type": "text/event-stream" });
    if (connections === 1) return response.write(": one heartbeat, then nothing\n\n");
    assert.equal(url.searchParams.get("after"), "6");
    event(response, 7, "card_played");
  });
  try {
    const retries: StreamRetryEvent[] = [];
    const stream = feed(base, { after: 6, idleMs: 200, retryMs: 10, onRetry: (retry) => retries.push(retry) });
    for await (const message of stream) {
      assert.equal(message.id, 7);
      break;
    }
    assert.equal(connections, 2);
    assert.equal(retries[0]?.problem.code, "network_error");
  } finally {
    await stop(server);
  }
});

async function closedPort(): Promise<string> {
  const { base, server } = await serve(() => undefined);
  await stop(server);
  return base;
}

test("no answer is a value: the request client's error and the stream's end are network_error problems", async () => {
  const base = await closedPort();
  const retries: RetryEvent[] = [];
  const client = createDokoClient(base, { retry: { attempts: 3, delayMs: 10, onRetry: (retry) => retries.push(retry) } });
  const answer = await client.GET("/tables/{table_id}", { params: { path: { table_id: "t1" } } });
  assert.equal(answer.data, undefined);
  assert.equal(answer.response, undefined);
  assert.equal(answer.error?.code, "network_error");
  assert.equal(answer.error?.status, 0);
  assert.deepEqual(
    retries.map(({ attempt, status }) => [attempt, status]),
    [
      [1, 0],
      [2, 0],
    ],
  );
  const aborted = await client.GET("/tables/{table_id}", { params: { path: { table_id: "t1" } }, signal: AbortSignal.abort() });
  assert.equal(aborted.error?.code, "aborted");
  const stream = tableEvents(base, "t1", { token: "seat-token", attempts: 3, retryMs: 10 });
  for await (const _ of stream) assert.fail("no message");
  assert.equal(stream.end?.reason, "failed");
  assert.equal(stream.end?.reason === "failed" && stream.end.problem.code, "network_error");
});

test("the request client waits Retry-After and sends a POST again with the same Idempotency-Key", async () => {
  const keys: (string | undefined)[] = [];
  const { base, server } = await serve((request, response, url) => {
    if (url.pathname === "/tables/t1") return problem(response, 429, "rate_limited", 120);
    keys.push(request.headers["idempotency-key"] as string | undefined);
    if (keys.length === 1) return problem(response, 503, "database_unavailable", 1);
    response.writeHead(201, { "content-type": "application/json" });
    response.end(JSON.stringify({ table_id: "t1", host_token: "h", version: 1 }));
  });
  try {
    const client = createDokoClient(base, { retry: { delayMs: 10 } });
    const started = Date.now();
    const created = await client.POST("/tables", { body: { name: "Freitag" } });
    assert.equal(created.response?.status, 201);
    assert.equal(created.data?.table_id, "t1");
    assert.ok(Date.now() - started >= 1000, "Retry-After: 1 honoured");
    assert.equal(keys.length, 2);
    assert.ok(keys[0] && keys[0] === keys[1], "the same key for both attempts");
    const own = await client.POST("/tables", { body: { name: "Freitag" }, params: { header: { "Idempotency-Key": "my-own-key-0123456789" } } });
    assert.equal(own.response?.status, 201);
    assert.equal(keys[2], "my-own-key-0123456789");
    const limited = await client.GET("/tables/{table_id}", { params: { path: { table_id: "t1" } } });
    assert.equal(limited.error?.code, "rate_limited", "a wait longer than maxDelayMs is the caller's");
  } finally {
    await stop(server);
  }
});
