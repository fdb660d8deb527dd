// Adapter: @anthropic-ai/sdk (TypeScript), the path on which the SDK itself converts a JSON Schema
// it is handed: an MCP tool given to the tool runner through `mcpTool` (helpers/beta/mcp). The
// user's call: `client.beta.messages.toolRunner({ tools: [mcpTool(tool, mcpClient)], ... })`, with
// `tool` as `mcpClient.listTools()` returns it (`inputSchema` a JSON Schema). `mcpTool` rewrites the
// root (`type: "object"`, `properties ?? null`, `required ?? null`) and the runner sends it as
// `tools[0].input_schema`; a plain `messages.create` tool is sent as given.
// The code path (the table's `entry.path`) is `mcpTool` itself: the adapter reads the runnable
// tool's `input_schema`. The entry makes the tool runner's first request with a `Wire` fetch
// (nothing reaches the network) and reads `tools[0].input_schema` from its body.
// Table: dispositions/anthropic-sdk-ts.yaml.

import { Wire, wrap } from "./sf-adapter.mjs";

const PACKAGE = "@anthropic-ai/sdk";

const wrapped = await wrap({
  name: "anthropic-sdk-ts",
  from: import.meta.url,
  packages: [PACKAGE],
  imports: async () => ({ Anthropic: (await import(PACKAGE)).default, mcpTool: (await import("@anthropic-ai/sdk/helpers/beta/mcp")).mcpTool }),
});
const { Anthropic, mcpTool } = wrapped.modules;

// The MCP client is only called when the model calls the tool, which never happens here.
const mcpClient = {
  callTool: async () => {
    throw new Error("the MCP client is never called");
  },
};

// The API declares the root's `properties` and `required` nullable (BetaTool.InputSchema in
// resources/beta/messages/messages.d.ts: `properties?: unknown | null`, `required?: string[] |
// null`): a null there is "not given", which is how the projection spells it. Nothing else is
// touched, and only at the root, where the API's type says so.
function projection(sent) {
  const schema = { ...sent };
  for (const key of ["properties", "required"]) if (schema[key] === null) delete schema[key];
  return { schema, dialect: "json-schema" };
}

const tool = (schema) => mcpTool({ name: "f", inputSchema: structuredClone(schema) }, mcpClient);

async function translate(schema) {
  return projection(structuredClone(tool(schema).input_schema));
}

const wire = new Wire();

async function entry(schema) {
  const client = new Anthropic({ apiKey: "x", fetch: wire.fetch, maxRetries: 0 });
  const runner = client.beta.messages.toolRunner({
    model: "claude-sonnet-4-5",
    max_tokens: 16,
    messages: [{ role: "user", content: "hi" }],
    tools: [tool(schema)],
  });
  const body = await wire.send(async () => {
    for await (const _message of runner) break;
  });
  return projection(body.tools[0].input_schema);
}

await wrapped.serve({
  translators: { "anthropic-sdk-ts": translate },
  entries: { "anthropic-sdk-ts": entry },
});
