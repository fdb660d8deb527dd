// Adapter: @ai-sdk/moonshotai, the AI SDK provider for Moonshot/Kimi. Its chat model's `getArgs`
// (called by `doGenerate`/`doStream` before any request) runs `prepareTools`, which sends each
// function tool's `inputSchema` through `normalizeJsonSchemaForMFJS`. `getArgs` never fetches;
// the provider is still given a stub `fetch` that throws, so nothing can reach the network.
// Table: dispositions/ai-sdk-moonshot.yaml.

import { readFile } from "node:fs/promises";
import { Refusal, serve } from "./sf-adapter.mjs";

const PACKAGE = "@ai-sdk/moonshotai";
const here = new URL(".", import.meta.url);

let moonshot;
let unavailable;
try {
  moonshot = await import(PACKAGE);
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

async function translate(schema) {
  const model = moonshot.createMoonshotAI({ apiKey: "x", fetch: stub })("kimi-k2.6");
  let args;
  try {
    ({ args } = await model.getArgs({
      prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
      tools: [{ type: "function", name: "f", inputSchema: structuredClone(schema) }],
    }));
  } catch (error) {
    if (error?.name === "AI_UnsupportedFunctionalityError" && /tool parameters must be a JSON Schema object/.test(error.message)) {
      const cited = rootRefusal(schema, error);
      if (cited) throw cited;
    }
    throw error;
  }
  return { schema: args.tools[0].function.parameters, dialect: "json-schema" };
}

await serve({
  name: "ai-sdk-moonshot",
  version: await version(PACKAGE),
  translators: { "ai-sdk-moonshot": translate },
  packages: { [PACKAGE]: await version(PACKAGE) },
  unavailable,
});
