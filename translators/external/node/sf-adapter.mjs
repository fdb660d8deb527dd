// The schema-fidelity adapter protocol, version 1, for Node adapters.
//
// An adapter is a function per translator, `translate(schema) -> projection`, that throws a
// `Refusal` (or `LimitRefusal`) where the translator refuses by design; `serve()` does the rest. The messages are
// specified in protocol/request.schema.json and protocol/response.schema.json.
//
// While serving, console.log/info/debug write to stderr: a library that logs cannot corrupt the
// protocol stream on stdout, and its output shows up in the harness's fault messages instead.

import { createInterface } from "node:readline";

export const PROTOCOL = 1;

/** The translator refuses the schema by design: the keyword it refuses and where it stands. */
export class Refusal extends Error {
  constructor(keyword, pointer, message) {
    super(message);
    this.keyword = keyword;
    this.pointer = pointer;
  }

  cites() {
    return { keyword: this.keyword, pointer: this.pointer, message: this.message };
  }
}

/**
 * The translator refuses because the schema exceeds a limit: its name (a `limits:` entry of the
 * table's target or a `bounds:` entry of the table), the translator's count, the limit's value.
 */
export class LimitRefusal extends Refusal {
  constructor(limit, measured, value, message) {
    super("", "", message);
    this.limit = limit;
    this.measured = measured;
    this.value = value;
  }

  cites() {
    return { limit: this.limit, measured: this.measured, value: this.value, message: this.message };
  }
}

/**
 * Answer the harness until stdin ends.
 * @param {{name: string, version: string, translators: Record<string, (schema: unknown) => object>,
 *          packages?: Record<string, string>, unavailable?: string}} adapter
 */
export async function serve({ name, version, translators, packages, unavailable }) {
  const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");
  for (const method of ["log", "info", "debug"]) console[method] = (...args) => console.error(...args);

  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    const request = JSON.parse(line);
    if ("start" in request) {
      if (unavailable !== undefined) {
        send({ unavailable: { reason: unavailable } });
        return;
      }
      const started = { protocol: PROTOCOL, name, version, translators: Object.keys(translators).sort() };
      if (packages) started.packages = packages;
      send({ started });
      continue;
    }
    const { id } = request;
    try {
      send({ id, projection: await translators[request.translator](request.schema) });
    } catch (error) {
      if (error instanceof Refusal) {
        send({ id, refusal: error.cites() });
      } else {
        console.error(error);
        send({ id, error: { message: `${error?.name ?? "Error"}: ${error?.message ?? String(error)}` } });
      }
    }
  }
}

/** Escape one JSON-pointer token (RFC 6901). */
export const escapeToken = (token) => String(token).replaceAll("~", "~0").replaceAll("/", "~1");

/**
 * Every schema node under `schema` (objects only), with its JSON pointer, parents first. Used to
 * attribute a library's error, which names no location, to the node that raises it.
 */
export function* schemaNodes(schema, pointer = "") {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return;
  yield [schema, pointer];
  for (const [key, value] of Object.entries(schema)) {
    if (["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"].includes(key) && value && typeof value === "object") {
      for (const [name, child] of Object.entries(value)) yield* schemaNodes(child, `${pointer}/${key}/${escapeToken(name)}`);
    } else if (["allOf", "anyOf", "oneOf", "prefixItems"].includes(key) && Array.isArray(value)) {
      for (const [i, child] of value.entries()) yield* schemaNodes(child, `${pointer}/${key}/${i}`);
    } else if (["items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "contentSchema"].includes(key)) {
      yield* schemaNodes(value, `${pointer}/${key}`);
    }
  }
}
