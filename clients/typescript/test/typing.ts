/**
 * What the compiler refuses (each `@ts-expect-error` fails the build if the line compiles):
 * the document's enums and unions are closed types, not strings.
 */

import type { Schemas, TableStreamData } from "../src/index.js";

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
