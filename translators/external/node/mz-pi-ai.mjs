// Adapter: @mariozechner/pi-ai, the tool schema each provider path sends. The user's call:
// `complete(getModel(provider, id), { messages, tools: [{ name, description, parameters }] }, { apiKey })`,
// with `parameters` a JSON Schema (pi-ai's `Tool.parameters` is a TypeBox `TSchema`, which is one).
// Each provider module converts `context.tools` its own way (the tables' `entry.path`):
//   - anthropic (anthropic-messages): `convertTools` (anthropic.js, not exported) sends
//     `input_schema: { type: "object", properties: schema.properties ?? {}, required: schema.required ?? [] }`,
//     nothing else of the root;
//   - google (google-generative-ai): `convertTools` (google-shared.js) sends the schema untouched as
//     `parametersJsonSchema`;
//   - openai (openai-responses): `convertResponsesTools` (openai-responses-shared.js) sends it
//     untouched as `parameters`, `strict: false`;
//   - amazon-bedrock (bedrock-converse-stream): `convertToolConfig` (amazon-bedrock.js, not exported)
//     sends it untouched as `toolSpec.inputSchema.json`.
// The adapter answers through the exported conversions (google-shared.js and
// openai-responses-shared.js, imported from the package's files: the exports map does not list
// them); the anthropic and bedrock conversions are not exported, so those two paths answer through
// the call itself, like google-genai-js. Asked `via: entry`, every path makes the call: the HTTP
// layer is stubbed, `globalThis.fetch` (which the Anthropic, OpenAI and Google SDKs pi-ai creates
// per call use; pi-ai takes no fetch option) by a `Wire`, and the Bedrock client (AWS SDK, its own
// HTTP/2 handler) by a middleware at its finalizeRequest step that records the serialized body and
// throws before any connection. Nothing reaches the network; the projection is read from the body.
// Tables: dispositions/mz-pi-ai-anthropic.yaml, mz-pi-ai-google.yaml, mz-pi-ai-openai.yaml, mz-pi-ai-bedrock.yaml.

import { Wire, wrap } from "./sf-adapter.mjs";

const PACKAGE = "@mariozechner/pi-ai";
const here = new URL(".", import.meta.url);
const providers = new URL(`node_modules/${PACKAGE}/dist/providers/`, here);

const wrapped = await wrap({
  name: "mz-pi-ai",
  from: import.meta.url,
  packages: [PACKAGE],
  imports: async () => ({
    piai: await import(PACKAGE),
    bedrock: await import("@aws-sdk/client-bedrock-runtime"),
    googleShared: await import(new URL("google-shared.js", providers)),
    responsesShared: await import(new URL("openai-responses-shared.js", providers)),
  }),
});
const { piai, bedrock, googleShared, responsesShared } = wrapped.modules;

const wire = new Wire();
globalThis.fetch = wire.fetch;
class Captured extends Error {}
if (bedrock) {
  const send = bedrock.BedrockRuntimeClient.prototype.send;
  bedrock.BedrockRuntimeClient.prototype.send = function (command, ...rest) {
    command.middlewareStack.add(() => async (args) => {
      const body = args.request.body;
      wire.bodies.push(JSON.parse(typeof body === "string" ? body : new TextDecoder().decode(body)));
      throw new Captured("stub transport: the request is recorded, never sent");
    }, { step: "finalizeRequest", name: "schemaFidelityCapture" });
    return send.call(this, command, ...rest);
  };
  // Static credentials and a region, so that the client resolves none from the machine.
  process.env.AWS_BEDROCK_SKIP_AUTH = "1";
  process.env.AWS_REGION = "us-east-1";
}

const tool = (schema) => ({ name: "f", description: "f", parameters: structuredClone(schema) });

// The public call: complete() reports a failed request as a message with stopReason "error", never
// by throwing; a conversion that throws before the request surfaces there too.
const call = (provider, id) => async (schema) => {
  const model = piai.getModel(provider, id);
  if (!model) throw new Error(`pi-ai knows no model ${provider}/${id}`);
  let message;
  const body = await wire.send(async () => {
    message = await piai.complete(model, { messages: [{ role: "user", content: "hi", timestamp: 0 }], tools: [tool(schema)] }, { apiKey: "x" });
  }).catch((error) => {
    throw new Error(`pi-ai sent no request: ${message?.errorMessage ?? message?.stopReason ?? error.message}`);
  });
  return body;
};

// Per translator: the call (provider, model), where its request carries the tool's schema, and
// the conversion the provider runs (the call itself where it is not exported).
const PATHS = {
  "mz-pi-ai-anthropic": { call: call("anthropic", "claude-sonnet-4-5"), read: (b) => b.tools[0].input_schema },
  "mz-pi-ai-google": {
    call: call("google", "gemini-2.5-flash"),
    read: (b) => b.tools[0].functionDeclarations[0].parametersJsonSchema,
    // google.js calls convertTools(context.tools) with useParameters left false.
    convert: (schema) => googleShared.convertTools([tool(schema)])[0].functionDeclarations[0].parametersJsonSchema,
  },
  "mz-pi-ai-openai": {
    call: call("openai", "gpt-5"),
    read: (b) => b.tools[0].parameters,
    // openai-responses.js calls convertResponsesTools(context.tools) with no options: strict false.
    convert: (schema) => responsesShared.convertResponsesTools([tool(schema)])[0].parameters,
  },
  "mz-pi-ai-bedrock": { call: call("amazon-bedrock", "anthropic.claude-sonnet-4-5-20250929-v1:0"), read: (b) => b.toolConfig.tools[0].toolSpec.inputSchema.json },
};

const projection = (schema) => {
  if (schema === undefined) throw new Error("the request carries no tool schema");
  return { schema, dialect: "json-schema" };
};
const entry = (name) => async (schema) => projection(PATHS[name].read(await PATHS[name].call(schema)));
const translator = (name) => (PATHS[name].convert ? async (schema) => projection(PATHS[name].convert(schema)) : entry(name));

await wrapped.serve({
  translators: Object.fromEntries(Object.keys(PATHS).map((name) => [name, translator(name)])),
  entries: Object.fromEntries(Object.keys(PATHS).map((name) => [name, entry(name)])),
});
