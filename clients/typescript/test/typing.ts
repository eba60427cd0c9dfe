/**
 * What the compiler refuses (each `@ts-expect-error` fails the build if the line compiles):
 * the document's enums and unions are closed types, not strings.
 */

import { botKindValues, cardValues, gameTypeValues } from "../src/index.js";
import type {
  Card,
  DokoClient,
  EventStream,
  GameType,
  Schemas,
  StreamMessage,
  TableStreamData,
} from "../src/index.js";

// @ts-expect-error: no such card
export const card: Schemas["Card"] = "QX";

// @ts-expect-error: no such event type in a table stream
export const event: TableStreamData["type"] = "trick_lost";

export function chainHead(data: TableStreamData): string | undefined {
  if (data.type === "session_finished") return data.chain_head;
  // @ts-expect-error: only the witnessed events carry a chain head
  return data.chain_head;
}

export function retry(problem: Schemas["Problem"]): boolean {
  switch (problem.code) {
    case "rate_limited":
    case "database_unavailable":
      return true;
    // @ts-expect-error: no such problem code
    case "try_again":
      return true;
    default:
      return false;
  }
}

// The schemas by name, and the enums' values at run time, typed by their schema.
export const queen: Card = "QC";
// @ts-expect-error: no such card, by the schema's name too
export const knave: Card = "QX";
export const deck: readonly Card[] = cardValues;
// @ts-expect-error: the values are cards, not any strings
export const unknown = cardValues.includes("QX");
export const kinds: readonly Schemas["BotKind"][] = botKindValues;
export const games: readonly GameType[] = gameTypeValues;

/** What a bot does with any answer: a problem of the service's or the client's, one switch. */
export async function play(client: DokoClient, table_id: string, seat: 0 | 1 | 2 | 3): Promise<string> {
  const answer = await client.POST("/tables/{table_id}/seats/{seat}/play", {
    params: { path: { table_id, seat } },
    body: { card: "QC" },
  });
  if (answer.data) return answer.data.view.deal?.phase ?? "none";
  switch (answer.error.code) {
    case "network_error":
    case "must_follow":
      return answer.error.detail ?? "";
    // @ts-expect-error: no such problem code, of the service or the client
    case "no_answer":
      return "";
    default:
      // @ts-expect-error: a client problem has no response
      return String(answer.response.status);
  }
}

export function ended(stream: EventStream<TableStreamData>): string {
  const end = stream.end;
  if (end === undefined) return "running";
  switch (end.reason) {
    case "closed":
      return "closed";
    case "refused":
      return end.problem.code;
    case "failed":
      return end.problem.code;
    default:
      return end satisfies never;
  }
}

/** An operation that takes nothing is called with the path alone. */
export async function lobby(client: DokoClient): Promise<number> {
  const { data } = await client.GET("/tables");
  // @ts-expect-error: a path that is not in the document
  await client.GET("/lobby");
  return data?.tables.length ?? 0;
}

export function refusal(permission: Schemas["Permission"]): Schemas["ProblemCode"] | null {
  // @ts-expect-error: a refusal's code is a problem code, not any string
  const wrong: Schemas["Permission"]["code"] = "later";
  void wrong;
  return permission.code;
}

// @ts-expect-error: no such bot kind
export const bot: Schemas["SeatInfo"]["bot"] = "clever";

export function place(problem: Schemas["Problem"]): string | undefined {
  const first = problem.errors?.[0];
  if (first === undefined) return undefined;
  if ("pointer" in first) return first.pointer;
  if ("parameter" in first) return `${first.in} ${first.parameter}`;
  return first.name;
}

export function version(view: Schemas["TableView"]): number {
  // a view always says its version, status and actions: no `undefined` to handle
  const actions: Schemas["Permission"][] = view.actions;
  void actions;
  return view.version;
}

export function played(
  message: StreamMessage<TableStreamData>,
  item: StreamMessage<Schemas["FeedItem"]>,
): boolean {
  // @ts-expect-error: no such event in a table stream
  if (message.event === "trick_lost") return false;
  return message.event === "card_played" && item.event === "card_played";
}

/** Every table stream message says whose turn it is, and to a seat what it may do. */
export function mustAct(data: TableStreamData, seat: Schemas["Seat"]): boolean {
  const may = data.options;
  return data.turn === seat && Boolean(may?.cards?.length || may?.contracts?.length || may?.declarations?.length);
}

export function named(data: TableStreamData): Schemas["GameType"] | null {
  if (data.type !== "contract_named") return null;
  // @ts-expect-error: another seat's contract is hidden (R4.3): it may be null
  const contract: Schemas["GameType"] = data.contract;
  return contract;
}
