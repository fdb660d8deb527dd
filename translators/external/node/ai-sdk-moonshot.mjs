// Adapter: @ai-sdk/moonshotai, the AI SDK provider for Moonshot/Kimi. Its chat model's `getArgs`
// (called by `doGenerate`/`doStream` before any request) runs `prepareTools`, which sends each
// function tool's `inputSchema` through `normalizeJsonSchemaForMFJS`. `getArgs` never fetches;
// the provider is still given a stub `fetch` that throws, so nothing can reach the network.
// The entry makes the provider's `doGenerate` (the LanguageModel call `generateText` makes) with a
// `Wire` fetch and reads `tools[0].function.parameters` from the request body.
// Table: dispositions/ai-sdk-moonshot.yaml.

import { Refusal, Wire, wrap } from "./sf-adapter.mjs";

const PACKAGE = "@ai-sdk/moonshotai";

const wrapped = await wrap({
  name: "ai-sdk-moonshot",
  from: import.meta.url,
  packages: [PACKAGE],
  imports: async () => ({ moonshot: await import(PACKAGE) }),
});
const { moonshot } = wrapped.modules;

const stub = async () => {
  throw new Error("stub fetch: no request may be sent");
};

// normalizeJsonSchemaForMFJS refuses, by design, a root that is not `type: "object"`
// (UnsupportedFunctionalityError): cited as the root's `type`, or its first keyword, or the boolean.
function rootRefusal(schema, error) {
  if (typeof schema === "boolean") return new Refusal(String(schema), "", error.message);
  if (schema === null || typeof schema !== "object") return undefined;
  const keyword = "type" in schema ? "type" : Object.keys(schema)[0];
  return keyword === undefined ? undefined : new Refusal(keyword, "", error.message);
}

const PROMPT = [{ role: "user", content: [{ type: "text", text: "hi" }] }];
const tools = (schema) => [{ type: "function", name: "f", inputSchema: structuredClone(schema) }];

function cited(schema, error) {
  if (error?.name === "AI_UnsupportedFunctionalityError" && /tool parameters must be a JSON Schema object/.test(error.message)) return rootRefusal(schema, error);
  return undefined;
}

async function translate(schema) {
  const model = moonshot.createMoonshotAI({ apiKey: "x", fetch: stub })("kimi-k2.6");
  let args;
  try {
    ({ args } = await model.getArgs({ prompt: PROMPT, tools: tools(schema) }));
  } catch (error) {
    throw cited(schema, error) ?? error;
  }
  return { schema: args.tools[0].function.parameters, dialect: "json-schema" };
}

const wire = new Wire();

async function entry(schema) {
  const model = moonshot.createMoonshotAI({ apiKey: "x", fetch: wire.fetch })("kimi-k2.6");
  let body;
  try {
    body = await wire.send(() => model.doGenerate({ prompt: PROMPT, tools: tools(schema) }));
  } catch (error) {
    throw cited(schema, error) ?? error;
  }
  return { schema: body.tools[0].function.parameters, dialect: "json-schema" };
}

await wrapped.serve({
  translators: { "ai-sdk-moonshot": translate },
  entries: { "ai-sdk-moonshot": entry },
});
