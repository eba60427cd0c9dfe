/**
 * The client against a live `doko serve` (DOKO_URL): a public table, four seats, one deal
 * played through the typed operations by the options each seat's view offers, the table's
 * stream read typed and resumed, the feed read typed; a seat's and a host's streams opened
 * with a fresh stream ticket per connection, a seat's ending once its player left.
 */

import assert from "node:assert/strict";
import { before, test } from "node:test";

import {
  createDokoClient,
  feed,
  ProblemError,
  tableEvents,
  type Schemas,
  type TableStreamMessage,
  type TalkMessage,
} from "../src/index.js";

const BASE = process.env.DOKO_URL ?? "http://127.0.0.1:8000";

async function fourSeats(): Promise<{ tableId: string; tokens: string[] }> {
  const anonymous = createDokoClient(BASE);
  const created = await anonymous.POST("/tables", {
    body: { name: "typescript", visibility: "public", first_dealer: 0 },
  });
  assert.equal(created.response?.status, 201);
  assert.ok(created.data);
  const tableId = created.data.table_id;
  const tokens: string[] = [];
  for (const seat of [0, 1, 2, 3]) {
    const taken = await anonymous.POST("/tables/{table_id}/seats", {
      params: { path: { table_id: tableId } },
      body: { name: `ts ${seat}`, seat },
    });
    assert.ok(taken.data, JSON.stringify(taken.error));
    assert.equal(taken.data.seat, seat);
    tokens.push(taken.data.token);
  }
  return { tableId, tokens };
}

/** One move of the seat whose turn the public view names, chosen from its own view's
 * options; false once the deal is scored. */
async function move(tableId: string, tokens: string[]): Promise<boolean> {
  const table = await createDokoClient(BASE).GET("/tables/{table_id}", {
    params: { path: { table_id: tableId } },
  });
  const turn = table.data?.deal?.turn;
  if (turn === undefined || turn === null) return false;
  // a session is 624 commands: without keys, each is written once as fast as the service can
  const client = createDokoClient(BASE, { token: tokens[turn] ?? "", idempotencyKeys: false });
  const path = { table_id: tableId, seat: turn };
  const view = await client.GET("/tables/{table_id}/seats/{seat}", { params: { path } });
  assert.ok(view.data?.deal, JSON.stringify(view.error));
  const { declarations = [], contracts = [], cards = [] } = view.data.deal.options;
  const declaration = declarations.includes("healthy") ? "healthy" : declarations[0];
  const answer = declaration
    ? await client.POST("/tables/{table_id}/seats/{seat}/reservation", {
        params: { path },
        body: { declaration },
      })
    : contracts[0]
      ? await client.POST("/tables/{table_id}/seats/{seat}/contract", {
          params: { path },
          body: { contract: contracts[0] },
        })
      : await client.POST("/tables/{table_id}/seats/{seat}/play", {
          params: { path },
          body: { card: cards[0] ?? "QC" },
        });
  assert.ok(answer.data, JSON.stringify(answer.error));
  return true;
}

let played: { tableId: string; tokens: string[] };

before(async () => {
  played = await fourSeats();
  while (await move(played.tableId, played.tokens));
});

test("a deal played through the typed client is streamed typed, and the stream resumes", async () => {
  const { tableId } = played;
  const seen: number[] = [];
  let scored: Schemas["WitnessedDealScored"] | undefined;
  const first = new AbortController();
  for await (const message of tableEvents(BASE, tableId, { signal: first.signal })) {
    assert.equal(message.event, message.data.type);
    seen.push(message.id);
    if (seen.length === 10) break;
  }
  for await (const message of tableEvents(BASE, tableId, { after: seen.at(-1) ?? 0 })) {
    seen.push(message.id);
    if (message.data.type === "deal_scored") {
      scored = message.data; // narrowed by the discriminator: it has its chain head
      break;
    }
  }
  assert.deepEqual(seen, Array.from({ length: seen.length }, (_, n) => n + 1), "no gap, no repeat");
  assert.ok(scored);
  assert.match(scored.chain_head, /^[0-9a-f]{64}$/);
  const sheet = await createDokoClient(BASE).GET("/tables/{table_id}/scoresheet", {
    params: { path: { table_id: tableId } },
  });
  assert.ok(sheet.data);
  assert.deepEqual(sheet.data.rows[0]?.entries, scored.score.entries);
  assert.equal(sheet.data.rows[0]?.chain_head, scored.chain_head);
});

test("the feed is typed: a public table's scored deal carries its chain head", async () => {
  const { tableId } = played;
  for await (const message of feed(BASE)) {
    const item = message.data;
    assert.equal(message.event, item.event.type);
    if (item.table_id === tableId && item.event.type === "deal_scored") {
      assert.match(item.chain_head ?? "", /^[0-9a-f]{64}$/);
      break;
    }
  }
});

test("table talk is typed: said by one seat, heard on another seat's stream, refused with its rule", async () => {
  const { tableId, tokens } = await fourSeats();
  const anna = createDokoClient(BASE, { token: tokens[0] ?? "" });
  let said: TalkMessage | undefined;
  // talk is sent live: say it once the stream is open (its first message has come)
  for await (const streamed of tableEvents(BASE, tableId, { token: tokens[1] ?? "" })) {
    if (said === undefined) {
      const answer = await anna.POST("/tables/{table_id}/talk", {
        params: { path: { table_id: tableId } },
        body: { text: "Gut gespielt!" },
      });
      assert.ok(answer.data, JSON.stringify(answer.error));
      said = answer.data;
      assert.deepEqual([said.kind, said.seat, said.text], ["said", 0, "Gut gespielt!"]);
    }
    if (streamed.event !== "talk") continue;
    const data = streamed.data as TalkMessage;
    assert.equal(data.talk_id, said.talk_id);
    break;
  }
  const refused = await anna.POST("/tables/{table_id}/talk", {
    params: { path: { table_id: tableId } },
    body: { text: "Ich habe die Kreuz-Dame" },
  });
  assert.equal(refused.error?.code, "talk_names_card");
  assert.equal(refused.error?.rule, "T5.2");
});

test("a refused request is a problem with its code and rule", async () => {
  const { tableId, tokens } = await fourSeats();
  const client = createDokoClient(BASE, { token: tokens[1] ?? "" });
  const refused = await client.POST("/tables/{table_id}/seats/{seat}/play", {
    params: { path: { table_id: tableId, seat: 1 } },
    body: { card: "QC" },
  });
  assert.equal(refused.response?.status, 409);
  assert.ok(refused.error);
  const error = new ProblemError(refused.error as Schemas["Problem"]);
  assert.equal(error.problem.status, 409);
  assert.ok(error.problem.rule, "a rule violation names its rule");
});

test("a stream of an unknown table ends with its problem, as a value", async () => {
  const stream = tableEvents(BASE, "no-such-table");
  for await (const _ of stream) assert.fail("no message");
  assert.equal(stream.end?.reason, "refused");
  assert.equal(stream.end?.reason === "refused" && stream.end.problem.code, "table_not_found");
  const seat = tableEvents(BASE, "no-such-table", { token: "x".repeat(43) });
  for await (const _ of seat) assert.fail("no message");
  assert.equal(seat.end?.reason === "refused" && seat.end.problem.status, 404);
});

/** `fetch` that notes each request: method, URL and whether it carried a credential. */
function noting(): { fetch: typeof fetch; sent: { method: string; url: URL; authorized: boolean }[] } {
  const sent: { method: string; url: URL; authorized: boolean }[] = [];
  return {
    sent,
    fetch: (input, init) => {
      const headers = new Headers(init?.headers);
      sent.push({ method: init?.method ?? "GET", url: new URL(String(input)), authorized: headers.has("authorization") });
      return fetch(input, init);
    },
  };
}

test("a seat's stream opens each connection with a fresh ticket and ends refused once its player left", async () => {
  const anonymous = createDokoClient(BASE);
  const created = await anonymous.POST("/tables", { body: { name: "ticket", visibility: "public" } });
  assert.ok(created.data, JSON.stringify(created.error));
  const tableId = created.data.table_id;
  const taken = await anonymous.POST("/tables/{table_id}/seats", {
    params: { path: { table_id: tableId } },
    body: { name: "Anna", seat: 0 },
  });
  assert.ok(taken.data, JSON.stringify(taken.error));
  const token = taken.data.token;
  const { fetch, sent } = noting();
  const stream = tableEvents(BASE, tableId, { token, fetch, retryMs: 50 });
  const types: TableStreamMessage["type"][] = [];
  for await (const { data } of stream) {
    types.push(data.type);
    if (data.type === "seat_taken") {
      const left = await createDokoClient(BASE, { token }).DELETE("/tables/{table_id}/seats/{seat}", {
        params: { path: { table_id: tableId, seat: 0 } },
      });
      assert.ok(left.data, JSON.stringify(left.error));
    }
  }
  assert.deepEqual(types, ["table_created", "seat_taken", "seat_left"]);
  // the service ended the stream after the seat_left; the next ticket is refused the spent token
  assert.equal(stream.end?.reason, "refused", JSON.stringify(stream.end));
  assert.equal(stream.end?.reason === "refused" && stream.end.problem.code, "unauthorized");
  assert.equal(stream.lastEventId, "3");
  const [ticket, events, again] = sent;
  assert.equal(sent.length, 3, JSON.stringify(sent));
  assert.ok(ticket && events && again);
  assert.equal(ticket.method, "POST");
  assert.equal(ticket.url.pathname, `/tables/${tableId}/stream-tickets`);
  assert.ok(ticket.authorized, "the credential goes in the ticket request's header");
  assert.equal(events.url.pathname, `/tables/${tableId}/events`);
  assert.ok(events.url.searchParams.get("ticket"), "the stream opens with the ticket");
  assert.ok(!events.authorized && !events.url.search.includes(token), "and without the credential");
  assert.equal(again.url.pathname, `/tables/${tableId}/stream-tickets`);
});

test("a private table's stream resumes with a new ticket after the last id", async () => {
  const host = await createDokoClient(BASE).POST("/tables", { body: { name: "private", visibility: "private" } });
  assert.ok(host.data, JSON.stringify(host.error));
  const { table_id: tableId, host_token: hostToken, invitation } = host.data;
  assert.ok(invitation);
  const guest = createDokoClient(BASE, { token: invitation });
  for (const seat of [0, 1]) {
    const taken = await guest.POST("/tables/{table_id}/seats", { params: { path: { table_id: tableId } }, body: { name: `p${seat}`, seat } });
    assert.ok(taken.data, JSON.stringify(taken.error));
  }
  const hidden = tableEvents(BASE, tableId, { retryMs: 50 });
  for await (const _ of hidden) assert.fail("a private table shows nothing without a credential");
  assert.equal(hidden.end?.reason === "refused" && hidden.end.problem.code, "table_not_found");
  const { fetch, sent } = noting();
  const first = tableEvents(BASE, tableId, { token: hostToken, fetch });
  const ids: number[] = [];
  for await (const { id } of first) {
    ids.push(id);
    if (ids.length === 2) break;
  }
  assert.deepEqual(first.end, { reason: "closed" });
  const rest = tableEvents(BASE, tableId, { token: hostToken, fetch, after: first.lastEventId ?? 0 });
  for await (const { id, data } of rest) {
    ids.push(id);
    if (data.type === "seat_taken" && data.seat === 1) rest.close();
  }
  assert.deepEqual(ids, [1, 2, 3]);
  const opened = sent.filter(({ url }) => url.pathname.endsWith("/events"));
  assert.equal(opened.length, 2);
  const tickets = opened.map(({ url }) => url.searchParams.get("ticket"));
  assert.ok(tickets[0] && tickets[1] && tickets[0] !== tickets[1], "a fresh ticket per connection");
  assert.equal(opened[1]?.url.searchParams.get("after"), "2");
});
