/**
 * The client against a live `doko serve` (DOKO_URL): a public table, four seats, one deal
 * played through the typed operations by the options each seat's view offers, the table's
 * stream read typed and resumed, the feed read typed.
 */

import assert from "node:assert/strict";
import { before, test } from "node:test";

import { createDokoClient, feed, ProblemError, tableEvents, type Schemas } from "../src/index.js";

const BASE = process.env.DOKO_URL ?? "http://127.0.0.1:8000";

async function fourSeats(): Promise<{ tableId: string; tokens: string[] }> {
  const anonymous = createDokoClient(BASE);
  const created = await anonymous.POST("/tables", {
    body: { name: "typescript", visibility: "public", first_dealer: 0 },
  });
  assert.equal(created.response.status, 201);
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
  const client = createDokoClient(BASE, { token: tokens[turn] ?? "" });
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
  for await (const message of tableEvents(BASE, tableId, { lastEventId: seen.at(-1) ?? 0 })) {
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

test("a refused request is a problem with its code and rule", async () => {
  const { tableId, tokens } = await fourSeats();
  const client = createDokoClient(BASE, { token: tokens[1] ?? "" });
  const refused = await client.POST("/tables/{table_id}/seats/{seat}/play", {
    params: { path: { table_id: tableId, seat: 1 } },
    body: { card: "QC" },
  });
  assert.equal(refused.response.status, 409);
  assert.ok(refused.error);
  const error = new ProblemError(refused.error as Schemas["Problem"]);
  assert.equal(error.problem.status, 409);
  assert.ok(error.problem.rule, "a rule violation names its rule");
});

test("a stream of an unknown table ends with its problem", async () => {
  await assert.rejects(
    async () => {
      for await (const _ of tableEvents(BASE, "no-such-table")) break;
    },
    (error: unknown) => error instanceof ProblemError && error.problem.status === 404,
  );
});
