/**
 * A doko bot in 50 lines: it sits down at a table and plays its seat to the end of the session
 * from the table's stream alone (no polling: every stream message says whose turn it is and
 * what this seat may do).
 *
 *   npm install && npx tsc && node build/bot.js http://127.0.0.1:8000 TABLE_ID [INVITATION]
 *
 * It says `healthy` (holding both club queens that is a silent solo, R4.5), names the first
 * contract it is offered if it must, plays its first legal card and announces nothing. The
 * client (`@doko/client`) opens each connection of the stream with a fresh stream ticket,
 * resumes after the last message when the service restarts, retries requests as the service
 * asks and returns every problem as a value: there is no try/catch.
 */
import { createDokoClient, tableEvents } from "@doko/client";

const [base, tableId, invitation] = process.argv.slice(2);
if (!base || !tableId) throw new Error("usage: node build/bot.js BASE_URL TABLE_ID [INVITATION]");
const OVER = new Set(["session_finished", "session_abandoned", "table_closed"]);

const sat = await createDokoClient(base).POST("/tables/{table_id}/seats", {
  params: { path: { table_id: tableId } },
  body: invitation ? { name: "bot.ts", invitation } : { name: "bot.ts" },
});
if (sat.error) throw new Error(`${sat.error.code}: ${sat.error.detail}`);
const { seat, token } = sat.data;
console.log(`seat ${seat} at table ${tableId}`);
const me = createDokoClient(base, { token });
const path = { params: { path: { table_id: tableId, seat } } };

let acted = 0; // the table version after my last command: older messages are stale
const stream = tableEvents(base, tableId, { token }); // a fresh ticket per connection
for await (const { id, data } of stream) {
  if (data.type === "talk") continue; // table talk: a human's words, no event
  if (OVER.has(data.type)) {
    console.log(`the session is over at version ${id}`);
    break;
  }
  const options = data.options;
  if (data.turn !== seat || !options || id < acted) continue;
  const answer = options.declarations.length
    ? await me.POST("/tables/{table_id}/seats/{seat}/reservation", { ...path, body: { declaration: "healthy" } })
    : options.contracts.length
      ? await me.POST("/tables/{table_id}/seats/{seat}/contract", { ...path, body: { contract: options.contracts[0]! } })
      : options.cards.length
        ? await me.POST("/tables/{table_id}/seats/{seat}/play", { ...path, body: { card: options.cards[0]! } })
        : undefined;
  if (answer?.data) acted = answer.data.version;
  else if (answer?.error) console.error(`refused: ${answer.error.code} ${answer.error.detail ?? ""}`);
}
if (stream.end && stream.end.reason !== "closed") console.error("the stream ended", stream.end);
