// Adapter: @ai-sdk/openai 4.x (the AI SDK 7 line), what a strict function tool becomes on the wire.
// The user's call: `generateText({ model: openai("gpt-5"), tools: { f: tool({ inputSchema:
// jsonSchema(schema), strict: true }) } })` (`jsonSchema` is how the AI SDK takes a JSON Schema, an
// MCP tool's included). `ai`'s prepareTools hands the schema over unchanged; the Responses model
// (`openai(...)`, the provider's default) runs `prepareFunctionTool` -> `normalizeOpenAIJsonSchema`
// and sends `tools[0].parameters` with `strict: true`. The provider gets a `fetch` stub that records
// the request body and throws, so nothing reaches the network; the projection is read from that body.
// Table: dispositions/ai-sdk-openai.yaml.

import { readFile } from "node:fs/promises";
import { Refusal, escapeToken, serve } from "./sf-adapter.mjs";

const PACKAGE = "@ai-sdk/openai";
const here = new URL(".", import.meta.url);

let ai, openai, unavailable;
try {
  ai = await import("ai");
  openai = await import(PACKAGE);
} catch (error) {
  unavailable = `cannot load ai / ${PACKAGE} (${error.code ?? error.message}): run npm ci in translators/external/node`;
}
const version = async (name) => {
  try {
    return JSON.parse(await readFile(new URL(`node_modules/${name}/package.json`, here), "utf8")).version;
  } catch {
    return "not installed";
  }
};

let body;
// The stub answers 400 (which no client retries) so that the call ends at once.
const stub = async (_url, init) => {
  body = JSON.parse(init.body);
  return new Response(JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: "stub fetch: the request is recorded, never sent" } }), { status: 400, headers: { "content-type": "application/json" } });
};

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

async function translate(schema) {
  body = undefined;
  const model = openai.createOpenAI({ apiKey: "x", fetch: stub })("gpt-5");
  try {
    await ai.generateText({
      model,
      prompt: "hi",
      maxRetries: 0,
      tools: { f: ai.tool({ inputSchema: ai.jsonSchema(structuredClone(schema)), strict: true }) },
    });
  } catch (error) {
    if (body === undefined) {
      if (error?.name === "AI_UnsupportedFunctionalityError" && /propertyNames/.test(error.message)) {
        const pointer = locate(schema, "");
        if (pointer !== undefined) throw new Refusal("propertyNames", pointer, error.message);
      }
      throw error;
    }
  }
  if (body === undefined) throw new Error("generateText returned without sending a request");
  const tool = body.tools[0];
  if (tool.strict !== true) throw new Error(`the tool was not sent strict: ${JSON.stringify(tool)}`);
  return { schema: tool.parameters, dialect: "json-schema", strict: true };
}

await serve({
  name: "ai-sdk-openai",
  version: await version(PACKAGE),
  translators: { "ai-sdk-openai": translate },
  packages: { [PACKAGE]: await version(PACKAGE), ai: await version("ai") },
  unavailable,
});
