// Adapter: @ai-sdk/anthropic 4.x (the AI SDK 7 line), what a function tool becomes on the wire.
// The user's call: `generateText({ model: anthropic("claude-sonnet-4-5"), tools: { f: tool({
// inputSchema: jsonSchema(schema) }) } })` (`jsonSchema` is how the AI SDK takes a JSON Schema, an
// MCP tool's included). `ai`'s prepareTools hands the schema over unchanged, and the provider's
// prepareTools sends it as `tools[0].input_schema` (no `strict` unless the tool asks for it). The
// provider gets a `fetch` stub that records the request body and answers 400, so nothing reaches the
// network; the projection is read from that body.
// Table: dispositions/ai-sdk-anthropic.yaml.

import { readFile } from "node:fs/promises";
import { serve } from "./sf-adapter.mjs";

const PACKAGE = "@ai-sdk/anthropic";
const here = new URL(".", import.meta.url);

let ai, anthropic, unavailable;
try {
  ai = await import("ai");
  anthropic = await import(PACKAGE);
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

async function translate(schema) {
  body = undefined;
  const model = anthropic.createAnthropic({ apiKey: "x", fetch: stub })("claude-sonnet-4-5");
  try {
    await ai.generateText({
      model,
      prompt: "hi",
      maxRetries: 0,
      tools: { f: ai.tool({ inputSchema: ai.jsonSchema(structuredClone(schema)) }) },
    });
  } catch (error) {
    if (body === undefined) throw error;
  }
  if (body === undefined) throw new Error("generateText returned without sending a request");
  return { schema: body.tools[0].input_schema, dialect: "json-schema" };
}

await serve({
  name: "ai-sdk-anthropic",
  version: await version(PACKAGE),
  translators: { "ai-sdk-anthropic": translate },
  packages: { [PACKAGE]: await version(PACKAGE), ai: await version("ai") },
  unavailable,
});
