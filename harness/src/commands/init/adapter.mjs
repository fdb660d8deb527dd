// schema-fidelity adapter for the translator `@NAME@`, written by `schema-fidelity init`.
//
// `schema-fidelity run` starts this script from the project root (the `run:` of
// @TABLE@) and speaks protocol version 1 with it, one JSON object per line: a handshake
// (`{"start": {"protocol": 1}}`, answered `started` or `unavailable`), then one request per schema
// (`{"id", "translator", "schema"}`), each answered with what the translator made of it. Only those
// answers may go to stdout: while serving, console.log/info/debug write to stderr.
//
// The lines left to you carry a TODO marker, and `schema-fidelity lint` lists each until it is gone.
// Until `translate()` is filled in, the handshake answers `unavailable`, so a run says what to do
// instead of failing every case. Node built-ins only: the package you check is the only import to add.

import { createRequire } from "node:module"; // for reading a package's version (the example below)
import { createInterface } from "node:readline";

const NAME = "@NAME@";
const ADAPTER = "@ADAPTER@";
const PROTOCOL = 1;
// The marker `schema-fidelity init` leaves where something is to be filled in (spelled in two parts
// so that this line is not one of them).
const MARKER = "TODO" + "(schema-fidelity)";

let lib; // the package you check, loaded below
let VERSION = "unknown";
let UNAVAILABLE;
try {
  // TODO(schema-fidelity): load the package whose translator you check, and read its version (the
  // reports show it), e.g.
  //   lib = await import("my-package");
  //   VERSION = createRequire(import.meta.url)("my-package/package.json").version;
  // A package that cannot be loaded makes the handshake answer `unavailable` with the reason below
  // (the run then says so, with the table's `install:` command), instead of failing every case.
} catch (error) {
  VERSION = "not installed";
  UNAVAILABLE = `cannot load the package ${ADAPTER} checks: ${error?.message ?? error}`;
}

/** The translator refuses the schema by design: the keyword it refuses (one with a `refused` row in
 * the table) and the JSON pointer, into the source schema, of the node holding it. */
class Refusal extends Error {
  constructor(keyword, pointer, message) {
    super(message);
    this.keyword = keyword;
    this.pointer = pointer;
  }

  cites() {
    return { keyword: this.keyword, pointer: this.pointer, message: this.message };
  }
}

/** The translator refuses because the schema exceeds a limit: its name (a `limits:` entry of the
 * table's target or a `bounds:` entry of the table), the translator's count and the limit. */
class LimitRefusal extends Refusal {
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
 * What the translator makes of `schema` (a JSON Schema, draft 2020-12: an object or a boolean),
 * through the code path the table's `entry.path` names. It may be async.
 *
 * Return the projection, what the translator sends to the provider:
 *   { schema: ..., dialect: "json-schema" }      // or "gemini-proto", "openapi-3.0"
 * with, where they apply, `strict: true/false` (the flag it is sent with) and `codec` (how instances
 * change shape: { kind: "null-means-absent", sites: [{ object: POINTER, property: NAME }] }). Throw
 * `new Refusal(keyword, pointer, message)` where the translator refuses by design, or
 * `new LimitRefusal(limit, measured, value, message)`; anything else it throws is reported as a
 * crash on that schema, with its message (a `crash:` mark in the table can cover it).
 */
function translate(schema) {
  // TODO(schema-fidelity): call your translator on `schema`, e.g.
  //   return { schema: lib.toToolSchema(schema), dialect: "json-schema" };
  // and delete these lines: while this marker is in translate(), the adapter is unavailable.
  throw new Error(`fill in translate() in ${ADAPTER}`);
}

// Optional: the public call your users make to send a tool (the table's `entry.call`), with its
// transport stubbed so that nothing reaches the network, returning the projection read from the
// request it built (`entry.reads`), as translate() does. Once set, the handshake lists it under
// `entries` and the harness may ask for it with `"via": "entry"`, holding both answers equal.
const entry = undefined;

/** Why the adapter cannot answer yet, or undefined: translate() still holds the marker. */
function unfinished() {
  if (translate.toString().includes(MARKER)) return `fill in translate() in ${ADAPTER}: it still holds the ${MARKER} marker`;
  return undefined;
}

/** The answer to one translate request, as a line. */
async function answer(request) {
  const { id } = request;
  try {
    if (request.translator !== NAME) throw new RangeError(`${ADAPTER} serves the translator \`${NAME}\`, not \`${request.translator}\``);
    const viaEntry = request.via === "entry";
    if (viaEntry && entry === undefined) throw new RangeError(`${ADAPTER} drives no public entry (\`entry\` is not set)`);
    const projection = await (viaEntry ? entry : translate)(request.schema);
    // Encoded here, so that a projection that is not JSON (a BigInt, a cycle) is reported as this
    // schema's error rather than breaking the stream.
    return JSON.stringify({ id, projection });
  } catch (error) {
    if (error instanceof Refusal) return JSON.stringify({ id, refusal: error.cites() });
    console.error(error);
    return JSON.stringify({ id, error: { message: `${error?.name ?? "Error"}: ${error?.message ?? String(error)}` } });
  }
}

/** Answer the harness until stdin ends. */
async function serve() {
  const send = (line) => process.stdout.write(line + "\n");
  for (const method of ["log", "info", "debug"]) console[method] = (...args) => console.error(...args);
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === "") continue;
    const request = JSON.parse(line);
    if ("start" in request) {
      const reason = unfinished() ?? UNAVAILABLE;
      if (reason !== undefined) {
        send(JSON.stringify({ unavailable: { reason } }));
        // Nothing more to answer: stop reading, so the process ends without waiting for stdin.
        process.stdin.destroy();
        return;
      }
      const started = { protocol: PROTOCOL, name: NAME, version: VERSION, translators: [NAME] };
      if (entry !== undefined) started.entries = [NAME];
      send(JSON.stringify({ started }));
      continue;
    }
    send(await answer(request));
  }
}

await serve();
