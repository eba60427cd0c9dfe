import type { components } from "./schema.js";

/** An RFC 9457 problem as doko answers it (application/problem+json). */
export type Problem = components["schemas"]["Problem"];

/** A request the service refused: its problem, with the stable `code` and the `rule`. */
export class ProblemError extends Error {
  readonly problem: Problem;

  constructor(problem: Problem) {
    super(`${problem.status} ${problem.code}${problem.rule ? ` (${problem.rule})` : ""}: ${problem.detail ?? problem.title}`);
    this.name = "ProblemError";
    this.problem = problem;
  }
}
