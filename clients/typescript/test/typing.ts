/**
 * What the compiler refuses (each `@ts-expect-error` fails the build if the line compiles):
 * the document's enums and unions are closed types, not strings.
 */

import type { Schemas, StreamMessage, TableStreamData } from "../src/index.js";

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
