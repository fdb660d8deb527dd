// Adapter: @ai-sdk/openai 4.x (the AI SDK 7 line), what a strict function tool becomes on the wire.
// The user's call: `generateText({ model: openai("gpt-5"), tools: { f: tool({ inputSchema:
// jsonSchema(schema), strict: true }) } })` (`jsonSchema` is how the AI SDK takes a JSON Schema, an
// MCP tool's included). `ai`'s prepareTools hands the schema over unchanged (`asSchema(...).jsonSchema`)
// with the tool's `strict`; the Responses model (`openai(...)`, the provider's default) runs
// `getArgs` -> `prepareFunctionTool` -> `normalizeOpenAIJsonSchema` and sends `tools[0].parameters`
// with `strict: true`.
// The code path (the table's `entry.path`) is the Responses model's `getArgs` on the tool as `ai`
// hands it over; the entry makes `generateText` itself with a `Wire` fetch (nothing reaches the
// network) and reads the tool from the request body.
// Table: dispositions/ai-sdk-openai.yaml.

import { Refusal, Wire, escapeToken, wrap } from "./sf-adapter.mjs";

const PACKAGE = "@ai-sdk/openai";

const wrapped = await wrap({
  name: "ai-sdk-openai",
  from: import.meta.url,
  packages: [PACKAGE, "ai"],
  imports: async () => ({ ai: await import("ai"), openai: await import(PACKAGE) }),
});
const { ai, openai } = wrapped.modules;

// normalizeOpenAIJsonSchema throws UnsupportedFunctionalityError on purpose for a `propertyNames`
// that is a boolean or types its names as something other than a string, on a node its walk
// reaches. The error names no location: find the first such node in the walk's order.
const refusedPropertyNames = (node) =>
  node.propertyNames != null && (typeof node.propertyNames === "boolean" || (node.propertyNames.type != null && node.propertyNames.type !== "string"));
// The nodes normalizeSchema visits, in its order: the node itself, then these keywords.
function locate(node, pointer) {
  if (node === null || typeof node !== "object" || Array.isArray(node)) return undefined;
  if (refusedPropertyNames(node)) return pointer;
  const at = (value, path) => locate(value, path);
  const record = (key) => {
    if (node[key] == null || typeof node[key] !== "object") return undefined;
    for (const [name, value] of Object.entries(node[key])) {
      const found = at(value, `${pointer}/${key}/${escapeToken(name)}`);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  const list = (key) => {
    if (!Array.isArray(node[key])) return undefined;
    for (const [i, value] of node[key].entries()) {
      const found = at(value, `${pointer}/${key}/${i}`);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  return (
    record("properties") ?? record("patternProperties") ?? at(node.additionalProperties, `${pointer}/additionalProperties`) ??
    at(node.additionalItems, `${pointer}/additionalItems`) ?? (Array.isArray(node.items) ? list("items") : at(node.items, `${pointer}/items`)) ??
    at(node.contains, `${pointer}/contains`) ?? at(node.not, `${pointer}/not`) ?? list("allOf") ?? list("anyOf") ?? list("oneOf") ??
    record("definitions") ?? record("$defs") ??
    (node.dependencies != null && typeof node.dependencies === "object" ? Object.entries(node.dependencies).reduce((found, [name, value]) => found ?? (Array.isArray(value) ? undefined : at(value, `${pointer}/dependencies/${escapeToken(name)}`)), undefined) : undefined) ??
    at(node.if, `${pointer}/if`) ?? at(node.then, `${pointer}/then`) ?? at(node.else, `${pointer}/else`)
  );
}

// The deliberate refusal, with the node it stands on; anything else the call throws propagates.
function cited(schema, error) {
  if (error?.name === "AI_UnsupportedFunctionalityError" && /propertyNames/.test(error.message)) {
    const pointer = locate(schema, "");
    if (pointer !== undefined) return new Refusal("propertyNames", pointer, error.message);
  }
  return undefined;
}

function fromTool(tool) {
  if (tool.strict !== true) throw new Error(`the tool was not sent strict: ${JSON.stringify(tool)}`);
  return { schema: tool.parameters, dialect: "json-schema", strict: true };
}

const never = async () => {
  throw new Error("getArgs sends no request");
};

async function translate(schema) {
  const model = openai.createOpenAI({ apiKey: "x", fetch: never })("gpt-5");
  let args;
  try {
    ({ args } = await model.getArgs({
      prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
      tools: [{ type: "function", name: "f", inputSchema: structuredClone(schema), strict: true }],
    }));
  } catch (error) {
    throw cited(schema, error) ?? error;
  }
  return fromTool(args.tools[0]);
}

const wire = new Wire();

async function entry(schema) {
  const model = openai.createOpenAI({ apiKey: "x", fetch: wire.fetch })("gpt-5");
  let body;
  try {
    body = await wire.send(() =>
      ai.generateText({
        model,
        prompt: "hi",
        maxRetries: 0,
        tools: { f: ai.tool({ inputSchema: ai.jsonSchema(structuredClone(schema)), strict: true }) },
      }),
    );
  } catch (error) {
    throw cited(schema, error) ?? error;
  }
  return fromTool(body.tools[0]);
}

await wrapped.serve({
  translators: { "ai-sdk-openai": translate },
  entries: { "ai-sdk-openai": entry },
});
