// The schema-fidelity adapter protocol, version 1, for Node adapters.
//
// An adapter is a function per translator, `translate(schema) -> projection`, that throws a
// `Refusal` (or `LimitRefusal`) where the translator refuses by design; `serve()` does the rest. The messages are
// specified in protocol/request.schema.json and protocol/response.schema.json.
//
// While serving, console.log/info/debug write to stderr: a library that logs cannot corrupt the
// protocol stream on stdout, and its output shows up in the harness's fault messages instead.

import { readFile } from "node:fs/promises";
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
 * The requests an SDK builds, captured at its transport: nothing reaches the network.
 *
 * Hand the SDK `wire.fetch` (as its `fetch` option, or as `globalThis.fetch` for one that takes
 * none), then `await wire.send(call)` runs `call` and returns the JSON body of the first request it
 * sent. The stub answers every request with HTTP 400 and a JSON error, which SDKs do not retry: the
 * call then throws, and that is expected. What it throws before any request went out is the SDK's
 * own answer about the schema (a refusal or a crash) and propagates unchanged.
 */
export class Wire {
  static ERROR = { error: { type: "invalid_request_error", code: 400, status: "INVALID_ARGUMENT", message: "schema-fidelity stub fetch: the request is recorded, never sent" } };

  constructor() {
    this.bodies = [];
    this.fetch = async (input, init) => {
      this.bodies.push(await requestBody(input, init));
      return new Response(JSON.stringify(Wire.ERROR), { status: 400, headers: { "content-type": "application/json" } });
    };
  }

  /** The JSON body of the first request `call` sends. */
  async send(call) {
    this.bodies = [];
    try {
      await call();
    } catch (error) {
      if (this.bodies.length === 0) throw error;
    }
    if (this.bodies.length === 0) throw new Error("the public call sent no request");
    return this.bodies[0];
  }
}

async function requestBody(input, init) {
  const body = init?.body ?? (input instanceof Request ? await input.clone().text() : undefined);
  if (body === undefined || body === null) return null;
  if (typeof body === "string") return JSON.parse(body);
  if (body instanceof Uint8Array || body instanceof ArrayBuffer) return JSON.parse(new TextDecoder().decode(body));
  return JSON.parse(await new Response(body).text());
}

/**
 * The packages an adapter wraps, loaded once as it starts: the preamble every adapter shares.
 *
 * `name` is the adapter's. `imports` makes the adapter's own dynamic imports (written in the
 * adapter, so that they resolve from its folder) and returns what it needs of them, as `modules`.
 * `packages` names the package checked first (its version is the adapter's), then any whose
 * versions the reports show beside it; they are read from `node_modules/NAME/package.json` beside
 * `from` (the adapter's `import.meta.url`), which also works where a package's `exports` hide it.
 * A package that cannot be loaded ends the adapter here: it answers the handshake `unavailable`,
 * with the reason and `install`, and exits, so a run says what to install instead of failing every
 * case, and no code below the call ever runs without its modules.
 * @param {{name: string, from: string, packages: string[], imports: () => Promise<object>, install?: string}} wrapped
 */
export async function wrap({ name, from, packages, imports, install = "run npm ci in translators/external/node" }) {
  let modules;
  try {
    modules = await imports();
  } catch (error) {
    await serve({ name, version: "not installed", translators: {}, unavailable: `cannot load ${packages.join(" / ")} (${error.code ?? error.message}): ${install}` });
    process.exit(0);
  }
  const versions = {};
  for (const name of packages) versions[name] = await installedVersion(from, name);
  return new Wrapped(name, modules, versions, versions[packages[0]]);
}

/** What [`wrap`] loaded: the adapter's modules, and its packages' versions. */
class Wrapped {
  constructor(name, modules, packages, version) {
    this.name = name;
    this.modules = modules;
    this.packages = packages;
    this.version = version;
  }

  /** [`serve`] with this adapter's name, version and packages. */
  serve({ translators, entries }) {
    return serve({ name: this.name, version: this.version, packages: this.packages, translators, entries });
  }
}

/** The version of the package `name` installed beside the module `from`, or "not installed". */
export async function installedVersion(from, name) {
  try {
    return JSON.parse(await readFile(new URL(`node_modules/${name}/package.json`, new URL(".", from)), "utf8")).version;
  } catch {
    return "not installed";
  }
}

/**
 * Answer the harness until stdin ends.
 *
 * `translators` maps translator names (table stems) to functions from a source schema to a
 * projection: the code path the table's `entry.path` names. `entries` maps the same names to
 * functions that make the table's `entry.call` (the public call users make, its transport stubbed
 * with a `Wire`) and read the projection out of the request it built; the harness asks for them
 * with `via: "entry"` and holds both answers equal.
 * @param {{name: string, version: string, translators: Record<string, (schema: unknown) => object>,
 *          entries?: Record<string, (schema: unknown) => Promise<object>>,
 *          packages?: Record<string, string>, unavailable?: string}} adapter
 */
export async function serve({ name, version, translators, entries = {}, packages, unavailable }) {
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
      if (Object.keys(entries).length > 0) started.entries = Object.keys(entries).sort();
      send({ started });
      continue;
    }
    const { id } = request;
    try {
      const via = request.via === "entry" ? entries : translators;
      send({ id, projection: await via[request.translator](request.schema) });
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
