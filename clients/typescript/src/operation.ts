/**
 * The document's operations by method and path, for code that sends its own requests (the
 * web client's `service/web/api.js` takes its types from here, in JSDoc): what a request
 * takes, in openapi-fetch's shape (`params.path`, `params.query`, `params.header`, `body`),
 * and what each status below 400 answers.
 */

import type { ParamsOption, RequestBodyOption } from "openapi-fetch";

import type { paths } from "./schema.js";

/** The methods of doko's operations, as `fetch` sends them. */
export type Method = "GET" | "POST" | "DELETE";

/** The paths, as the document writes them (`/tables/{table_id}`), with an operation for `method`. */
export type PathOf<M extends Method> = {
  [P in keyof paths]: paths[P][Lowercase<M>] extends undefined ? never : P;
}[keyof paths];

/** The operation of `method` at `path`. */
export type Operation<M extends Method, P extends PathOf<M>> = NonNullable<paths[P][Lowercase<M>]>;

/** What a request of the operation takes: its parameters and its JSON body, each required
 * when the document requires it. */
export type RequestOf<O> = ParamsOption<O> & RequestBodyOption<O>;

type Responses<O> = O extends { responses: infer R } ? R : never;
type Json<R> = R extends { content: { "application/json": infer T } } ? T : null;

/** Each status below 400 the operation answers, with its decoded JSON body (`null` for an
 * answer without one, such as 304). */
export type AnswerOf<O> = {
  [S in keyof Responses<O>]: S extends number
    ? `${S}` extends `${1 | 2 | 3}${string}`
      ? { status: S; data: Json<Responses<O>[S]> }
      : never
    : never;
}[keyof Responses<O>];
