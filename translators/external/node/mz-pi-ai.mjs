// Adapter: @mariozechner/pi-ai, the tool schema each provider path sends. The user's call:
// `complete(getModel(provider, id), { messages, tools: [{ name, description, parameters }] }, { apiKey })`,
// with `parameters` a JSON Schema (pi-ai's `Tool.parameters` is a TypeBox `TSchema`, which is one).
// Each provider module converts `context.tools` its own way:
//   - anthropic (anthropic-messages): `convertTools` sends `input_schema: { type: "object",
//     properties: schema.properties ?? {}, required: schema.required ?? [] }`, nothing else of the root;
//   - google (google-generative-ai): `convertTools` sends the schema untouched as `parametersJsonSchema`;
//   - openai (openai-responses): `convertResponsesTools` sends it untouched as `parameters`, `strict: false`;
//   - amazon-bedrock (bedrock-converse-stream): `convertToolConfig` sends it untouched as
//     `toolSpec.inputSchema.json`.
// The HTTP layer is stubbed: `globalThis.fetch` (which the Anthropic, OpenAI and Google SDKs that
// pi-ai creates per call use) records the body and answers 400; the Bedrock client (AWS SDK, its own
// HTTP/2 handler) gets a middleware at its finalizeRequest step that records the serialized body and
// throws before any connection. Nothing reaches the network; each projection is read from the body.
// Tables: dispositions/mz-pi-ai-anthropic.yaml, mz-pi-ai-google.yaml, mz-pi-ai-openai.yaml, mz-pi-ai-bedrock.yaml.

import { readFile } from "node:fs/promises";
import { serve } from "./sf-adapter.mjs";

const PACKAGE = "@mariozechner/pi-ai";
const here = new URL(".", import.meta.url);

let piai, bedrock, unavailable;
try {
  piai = await import(PACKAGE);
  bedrock = await import("@aws-sdk/client-bedrock-runtime");
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

class Captured extends Error {}
let body;
const MESSAGE = "stub transport: the request is recorded, never sent";
const record = (text) => {
  body = JSON.parse(typeof text === "string" ? text : new TextDecoder().decode(text));
};
// The stub answers 400 (which no SDK retries) so that the call ends at once.
globalThis.fetch = async (_url, init) => {
  record(init.body);
  return new Response(JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: MESSAGE, code: 400, status: "INVALID_ARGUMENT" } }), { status: 400, headers: { "content-type": "application/json" } });
};
if (bedrock) {
  const send = bedrock.BedrockRuntimeClient.prototype.send;
  bedrock.BedrockRuntimeClient.prototype.send = function (command, ...rest) {
    command.middlewareStack.add(() => async (args) => {
      record(args.request.body);
      throw new Captured(MESSAGE);
    }, { step: "finalizeRequest", name: "schemaFidelityCapture" });
    return send.call(this, command, ...rest);
  };
  // Static credentials and a region, so that the client resolves none from the machine.
  process.env.AWS_BEDROCK_SKIP_AUTH = "1";
  process.env.AWS_REGION = "us-east-1";
}

// provider, model id, where the request carries the tool's schema and how it is spoken.
const PATHS = {
  "mz-pi-ai-anthropic": ["anthropic", "claude-sonnet-4-5", (b) => b.tools[0].input_schema, "json-schema"],
  "mz-pi-ai-google": ["google", "gemini-2.5-flash", (b) => b.tools[0].functionDeclarations[0].parametersJsonSchema, "json-schema"],
  "mz-pi-ai-openai": ["openai", "gpt-5", (b) => b.tools[0].parameters, "json-schema"],
  "mz-pi-ai-bedrock": ["amazon-bedrock", "anthropic.claude-sonnet-4-5-20250929-v1:0", (b) => b.toolConfig.tools[0].toolSpec.inputSchema.json, "json-schema"],
};

const translator = (name) => async (schema) => {
  const [provider, id, read, dialect] = PATHS[name];
  const model = piai.getModel(provider, id);
  if (!model) throw new Error(`pi-ai knows no model ${provider}/${id}`);
  body = undefined;
  // complete() reports a failed request as a message with stopReason "error", never by throwing;
  // a conversion that throws before the request surfaces there too.
  const message = await piai.complete(
    model,
    { messages: [{ role: "user", content: "hi", timestamp: 0 }], tools: [{ name: "f", description: "f", parameters: structuredClone(schema) }] },
    { apiKey: "x" },
  );
  if (body === undefined) throw new Error(`pi-ai sent no request: ${message.errorMessage ?? message.stopReason}`);
  const projection = read(body);
  if (projection === undefined) throw new Error(`the request carries no tool schema: ${JSON.stringify(body).slice(0, 400)}`);
  return { schema: projection, dialect };
};

await serve({
  name: "mz-pi-ai",
  version: await version(PACKAGE),
  translators: Object.fromEntries(Object.keys(PATHS).map((name) => [name, translator(name)])),
  packages: { [PACKAGE]: await version(PACKAGE) },
  unavailable,
});
