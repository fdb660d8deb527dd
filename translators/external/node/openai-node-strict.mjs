// Adapter: the openai Node SDK's strict function helper on the path that takes a JSON Schema.
// `zodFunction` only takes a zod type; its sibling `standardFunction` (openai/helpers/standard-schema)
// takes a Standard Schema validator and, documented for validators that cannot produce a JSON Schema
// themselves, an explicit `schema:` JSON Schema. Both end in the same `toStrictJsonSchema`
// (openai/lib/transform), through `normalizeStructuredOutputSchema` here. The user's call:
// `client.chat.completions.create({ tools: [standardFunction({ name, parameters: validator, schema })] })`.
// The code path (the table's `entry.path`) is `standardFunction` itself: the adapter reads the
// tool's `function.parameters`. The entry makes the call with a `Wire` fetch (nothing reaches the
// network) and reads `tools[0].function.parameters` from the request body, sent `strict: true`.
// The helper throws on purpose where a schema cannot be made strict without changing what it
// accepts; its messages name the keyword and the path: those are its refusals.
// Table: dispositions/openai-node-strict.yaml.

import { Refusal, Wire, escapeToken, wrap } from "./sf-adapter.mjs";

const PACKAGE = "openai";
const here = new URL(".", import.meta.url);

const wrapped = await wrap({
  name: "openai-node-strict",
  from: import.meta.url,
  packages: [PACKAGE],
  imports: async () => ({ OpenAI: (await import(PACKAGE)).default, standardFunction: (await import("openai/helpers/standard-schema")).standardFunction }),
});
const { OpenAI, standardFunction } = wrapped.modules;

// A validator that accepts what it is given: the adapter measures the schema the helper sends,
// not the parse of an answer.
const validator = { "~standard": { version: 1, vendor: "schema-fidelity", validate: (value) => ({ value }) } };

// The helper's paths are its traversal's keys joined by "/" (`properties/a/items`), `<root>` for the
// root. They name the schema it was handed after `normalizeStructuredOutputSchema` renamed each
// `oneOf` it kept to `anyOf`, and after a root `allOf` was merged into the root: read back in the
// source, an `anyOf` step the source spells `oneOf` is that `oneOf`.
function sourcePointer(schema, path) {
  if (path === "<root>" || path === "") return "";
  let node = schema;
  const steps = [];
  for (const segment of path.split("/")) {
    const step = segment === "anyOf" && node && typeof node === "object" && !("anyOf" in node) && "oneOf" in node ? "oneOf" : segment;
    steps.push(step);
    node = node && typeof node === "object" ? node[step] : undefined;
  }
  return "/" + steps.map(escapeToken).join("/");
}
const nodeAt = (schema, pointer) =>
  pointer === "" ? schema : pointer.slice(1).split("/").reduce((node, token) => (node && typeof node === "object" ? node[token.replaceAll("~1", "/").replaceAll("~0", "~")] : undefined), schema);
// An optional property is named by the merged object that holds it: in the source it is declared
// by that node or by one of its `allOf` branches (a merged `allOf`), which is where the refusal stands.
function declaring(schema, pointer, key) {
  const node = nodeAt(schema, pointer);
  if (node === null || typeof node !== "object") return pointer;
  if (node.properties && typeof node.properties === "object" && Object.hasOwn(node.properties, key)) return pointer;
  for (const [i, branch] of (Array.isArray(node.allOf) ? node.allOf : []).entries()) {
    const found = declaring(schema, `${pointer}/allOf/${i}`, key);
    const holder = nodeAt(schema, found);
    if (holder?.properties && Object.hasOwn(holder.properties, key)) return found;
  }
  return pointer;
}

// Its deliberate errors, each with the keyword it refuses and where (given the source schema). A
// TypeError on a boolean subschema or a malformed value is not among them: that is a crash and is
// reported as one.
const DELIBERATE = [
  [/^Root schema must have type: 'object'/, () => ["type", ""]],
  [/^Root schema must not use `anyOf`/, () => ["anyOf", ""]],
  [/^Cyclic local \$ref at `<root>`/, () => ["$ref", ""]],
  [/^Schema \$ref in root chain has non-annotation siblings/, () => ["$ref", ""]],
  [/^Schema \$ref at `([^`]*)` has non-(?:metadata|annotation) siblings/, (m, s) => ["$ref", sourcePointer(s, m[1])]],
  [/^Local \$ref at `([^`]*)` does not resolve/, (m, s) => ["$ref", sourcePointer(s, m[1])]],
  [/^External \$ref at `([^`]*)`/, (m, s) => ["$ref", sourcePointer(s, m[1])]],
  [/^Object schema at `([^`]*)` must set `additionalProperties: false`/, (m, s) => ["additionalProperties", sourcePointer(s, m[1])]],
  [/^Object schema at `([^`]*)` requires property `[^`]*` but does not declare it/, (m, s) => ["required", sourcePointer(s, m[1])]],
  [/^Schema field at `(?:(.*)\/)?properties\/([^`/]*)` uses `\.optional\(\)`/, (m, s) => ["properties", declaring(s, sourcePointer(s, m[1] ?? ""), m[2])]],
  [/^Schema at `([^`]*)` uses unsupported keyword `([^`]*)`/, (m, s) => [m[2], sourcePointer(s, m[1])]],
  [/^Schema at `([^`]*)` uses `allOf: \[false\]`/, (m, s) => ["allOf", sourcePointer(s, m[1])]],
  [/^Schema at `([^`]*)` declares an array without `items`/, (m, s) => ["type", sourcePointer(s, m[1])]],
  [/^Object anyOf schema at `([^`]*)`/, (m, s) => ["anyOf", sourcePointer(s, m[1])]],
  [/^Object allOf at `([^`]*)` cannot be merged/, (m, s) => ["allOf", sourcePointer(s, m[1])]],
  [/^Nested \$id at ("(?:[^"\\]|\\.)*")/, (m, s) => ["$id", sourcePointer(s, JSON.parse(m[1]))]],
  [/^Standard JSON Schema generated .*`oneOf`/, () => ["oneOf", undefined]],
];

function refusal(schema, error) {
  if (error?.name === "TypeError") return undefined;
  for (const [pattern, cite] of DELIBERATE) {
    const match = pattern.exec(error?.message ?? "");
    if (!match) continue;
    const [keyword, pointer] = cite(match, schema);
    return new Refusal(keyword, pointer ?? firstWith(schema, keyword, "") ?? "", error.message);
  }
  return undefined;
}
function firstWith(node, keyword, pointer) {
  if (node === null || typeof node !== "object") return undefined;
  if (!Array.isArray(node) && keyword in node) return pointer;
  for (const [key, value] of Object.entries(node)) {
    const found = firstWith(value, keyword, `${pointer}/${escapeToken(key)}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

function fromFunction(fn) {
  if (fn.strict !== true) throw new Error(`the tool was not sent strict: ${JSON.stringify(fn)}`);
  return { schema: fn.parameters, dialect: "json-schema", strict: true };
}

function tool(schema) {
  try {
    return standardFunction({ name: "f", parameters: validator, schema: structuredClone(schema) });
  } catch (error) {
    throw refusal(schema, error) ?? error;
  }
}

async function translate(schema) {
  return fromFunction(structuredClone(tool(schema).function));
}

const wire = new Wire();

async function entry(schema) {
  const client = new OpenAI({ apiKey: "x", fetch: wire.fetch, maxRetries: 0 });
  const body = await wire.send(() => client.chat.completions.create({ model: "gpt-5", messages: [{ role: "user", content: "hi" }], tools: [tool(schema)] }));
  return fromFunction(body.tools[0].function);
}

await wrapped.serve({
  translators: { "openai-node-strict": translate },
  entries: { "openai-node-strict": entry },
});
