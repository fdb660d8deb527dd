// Adapter: @mastra/schema-compat `prepareJsonSchemaForOpenAIStrictMode`, the JSON-Schema path
// Mastra uses to make a tool or output schema acceptable to OpenAI strict mode (every property
// required, `additionalProperties: false`, unsupported keywords stripped, `allOf` flattened).
// Table: dispositions/mastra-openai-strict.yaml.

import { readFile } from "node:fs/promises";
import { Refusal, schemaNodes, serve } from "./sf-adapter.mjs";

const PACKAGE = "@mastra/schema-compat";
const here = new URL(".", import.meta.url);

let compat;
let unavailable;
try {
  compat = await import(PACKAGE);
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

// Mastra refuses by design where a rewrite would change what is accepted, with errors that name
// no location. Each is attributed to the first node holding the keyword whose own conversion
// raises the same error.
const DELIBERATE = [
  ["Cannot flatten allOf", "allOf"],
  ['Cannot convert schema for OpenAI strict mode: "oneOf" and "anyOf"', "oneOf"],
];

function translate(schema) {
  try {
    return { schema: compat.prepareJsonSchemaForOpenAIStrictMode(schema), dialect: "json-schema", strict: true };
  } catch (error) {
    const keyword = DELIBERATE.find(([prefix]) => String(error?.message).startsWith(prefix))?.[1];
    if (keyword === undefined) throw error;
    for (const [node, pointer] of schemaNodes(schema)) {
      if (!(keyword in node)) continue;
      try {
        compat.prepareJsonSchemaForOpenAIStrictMode(node);
      } catch (inner) {
        if (inner?.message === error.message) throw new Refusal(keyword, pointer, error.message);
      }
    }
    throw error;
  }
}

await serve({
  name: "mastra-openai-strict",
  version: await version(PACKAGE),
  translators: { "mastra-openai-strict": translate },
  packages: { [PACKAGE]: await version(PACKAGE), zod: await version("zod") },
  unavailable,
});
