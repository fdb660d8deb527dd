// Adapter: @anthropic-ai/sdk (TypeScript), the path on which the SDK itself converts a JSON Schema
// it is handed: an MCP tool given to the tool runner through `mcpTool` (helpers/beta/mcp). The
// user's call: `client.beta.messages.toolRunner({ tools: [mcpTool(tool, mcpClient)], ... })`, with
// `tool` as `mcpClient.listTools()` returns it (`inputSchema` a JSON Schema). `mcpTool` rewrites the
// root (`type: "object"`, `properties ?? null`, `required ?? null`) and the runner sends it as
// `tools[0].input_schema`; a plain `messages.create` tool is sent as given. The client gets a
// `fetch` stub that records the request body and answers 400 (nothing reaches the network); the
// projection is read from that body.
// Table: dispositions/anthropic-sdk-ts.yaml.

import { readFile } from "node:fs/promises";
import { serve } from "./sf-adapter.mjs";

const PACKAGE = "@anthropic-ai/sdk";
const here = new URL(".", import.meta.url);

let Anthropic, mcpTool, unavailable;
try {
  Anthropic = (await import(PACKAGE)).default;
  ({ mcpTool } = await import("@anthropic-ai/sdk/helpers/beta/mcp"));
} catch (error) {
  unavailable = `cannot load ${PACKAGE} (${error.code ?? error.message}): run npm ci in translators/external/node`;
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
// The MCP client is only called when the model calls the tool, which never happens here.
const mcpClient = {
  callTool: async () => {
    throw new Error("the MCP client is never called");
  },
};

async function translate(schema) {
  body = undefined;
  const client = new Anthropic({ apiKey: "x", fetch: stub, maxRetries: 0 });
  const runner = client.beta.messages.toolRunner({
    model: "claude-sonnet-4-5",
    max_tokens: 16,
    messages: [{ role: "user", content: "hi" }],
    tools: [mcpTool({ name: "f", inputSchema: structuredClone(schema) }, mcpClient)],
  });
  try {
    for await (const _message of runner) break;
  } catch (error) {
    if (body === undefined) throw error;
  }
  if (body === undefined) throw new Error("the tool runner returned without sending a request");
  const sent = body.tools[0].input_schema;
  // The API declares the root's `properties` and `required` nullable (BetaTool.InputSchema in
  // resources/beta/messages/messages.d.ts: `properties?: unknown | null`, `required?: string[] |
  // null`): a null there is "not given", which is how the projection spells it. Nothing else is
  // touched, and only at the root, where the API's type says so.
  const projection = { ...sent };
  for (const key of ["properties", "required"]) if (projection[key] === null) delete projection[key];
  return { schema: projection, dialect: "json-schema" };
}

await serve({
  name: "anthropic-sdk-ts",
  version: await version(PACKAGE),
  translators: { "anthropic-sdk-ts": translate },
  packages: { [PACKAGE]: await version(PACKAGE) },
  unavailable,
});
