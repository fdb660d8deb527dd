// Adapter: @ai-sdk/anthropic 4.x (the AI SDK 7 line), what a function tool becomes on the wire.
// The user's call: `generateText({ model: anthropic("claude-sonnet-4-5"), tools: { f: tool({
// inputSchema: jsonSchema(schema) }) } })` (`jsonSchema` is how the AI SDK takes a JSON Schema, an
// MCP tool's included). `ai`'s prepareTools hands the schema over unchanged, and the provider's
// `getArgs` -> `prepareTools` sends it as `tools[0].input_schema: tool.inputSchema` (no `strict`
// unless the tool asks for it).
// The code path (the table's `entry.path`) is the model's `getArgs` on the tool as `ai` hands it
// over; the entry makes `generateText` itself with a `Wire` fetch (nothing reaches the network)
// and reads the tool from the request body.
// Table: dispositions/ai-sdk-anthropic.yaml.

import { Wire, wrap } from "./sf-adapter.mjs";

const PACKAGE = "@ai-sdk/anthropic";
const MODEL = "claude-sonnet-4-5";

const wrapped = await wrap({
  name: "ai-sdk-anthropic",
  from: import.meta.url,
  packages: [PACKAGE, "ai"],
  imports: async () => ({ ai: await import("ai"), anthropic: await import(PACKAGE) }),
});
const { ai, anthropic } = wrapped.modules;

const never = async () => {
  throw new Error("getArgs sends no request");
};

async function translate(schema) {
  const model = anthropic.createAnthropic({ apiKey: "x", fetch: never })(MODEL);
  // doGenerate passes the betas its headers name; there are none here.
  const { args } = await model.getArgs({
    userSuppliedBetas: new Set(),
    prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
    tools: [{ type: "function", name: "f", inputSchema: structuredClone(schema) }],
  });
  return { schema: args.tools[0].input_schema, dialect: "json-schema" };
}

const wire = new Wire();

async function entry(schema) {
  const model = anthropic.createAnthropic({ apiKey: "x", fetch: wire.fetch })(MODEL);
  const body = await wire.send(() =>
    ai.generateText({ model, prompt: "hi", maxRetries: 0, tools: { f: ai.tool({ inputSchema: ai.jsonSchema(structuredClone(schema)) }) } }),
  );
  return { schema: body.tools[0].input_schema, dialect: "json-schema" };
}

await wrapped.serve({
  translators: { "ai-sdk-anthropic": translate },
  entries: { "ai-sdk-anthropic": entry },
});
