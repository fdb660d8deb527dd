// Adapter: @mastra/schema-compat, the two paths a JSON Schema takes from Mastra to an OpenAI model.
// Mastra has no client of its own (it sends through an AI SDK provider), so each translator is the
// conversion Mastra's own code calls, cited at its call site in @mastra/core:
//
// `mastra-openai`: a tool. `CoreToolBuilder.build` (packages/core/src/tools/tool-builder/builder.ts)
// runs `applyCompatLayer({schema, compatLayers: [OpenAIReasoning, OpenAI, Google, Anthropic,
// DeepSeek, Meta], mode: "aiSdkSchema"})`; for an OpenAI model that is not a reasoning model the
// first that applies is `OpenAISchemaCompatLayer`: the JSON Schema goes through zod
// (`convertSchemaToZod`), each optional property becomes nullable with a transform that reads
// `null` back as absent, and the result is written back to JSON Schema with the optional names
// listed under `x-optional`. The projection is the AI SDK schema's `jsonSchema`, which the provider
// sends as the tool's parameters; its `validate` is the codec: `null` at an `x-optional` property
// is read as absent (null-means-absent, the sites derived from `x-optional`).
//
// `mastra-openai-strict`: structured output. With `structuredOutput` on an OpenAI model, Mastra's
// model loop (packages/core/src/llm/model/model.loop.ts, `isOpenAIStrictMode`) runs
// `prepareJsonSchemaForOpenAIStrictMode` on the response format's schema and sets
// `strictJsonSchema: true` (every property required, `additionalProperties: false`, unsupported
// keywords stripped, `allOf` flattened). It refuses by design where a rewrite would change what is
// accepted, with errors that name no location: each is attributed to the first node holding the
// keyword whose own conversion raises the same error.
//
// Both entries are the conversion itself: nothing of Mastra's between the call site and the AI SDK
// provider touches the schema. Tables: dispositions/mastra-openai.yaml,
// dispositions/mastra-openai-strict.yaml.

import { Refusal, escapeToken, schemaNodes, wrap } from "./sf-adapter.mjs";

const PACKAGE = "@mastra/schema-compat";

const wrapped = await wrap({
  name: "mastra",
  from: import.meta.url,
  packages: [PACKAGE, "zod"],
  imports: async () => ({ compat: await import(PACKAGE) }),
});
const { compat } = wrapped.modules;


// ---- the tool path ----------------------------------------------------------------------------

// What CoreToolBuilder.build gives the compat layers for an OpenAI Responses model (the AI SDK's
// `openai("gpt-5.5")`): not a reasoning model, so OpenAISchemaCompatLayer applies.
const MODEL = { modelId: "gpt-5.5", provider: "openai.responses", supportsStructuredOutputs: false };
const LAYERS = [
  "OpenAIReasoningSchemaCompatLayer",
  "OpenAISchemaCompatLayer",
  "GoogleSchemaCompatLayer",
  "AnthropicSchemaCompatLayer",
  "DeepSeekSchemaCompatLayer",
  "MetaSchemaCompatLayer",
];

const isRecord = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
const unescape = (t) => t.replaceAll("~1", "/").replaceAll("~0", "~");

// The codec's sites: each object node listing `x-optional` names properties whose `null` the
// AI SDK schema's `validate` reads back as absent. It does so also where the source property
// already admitted `null` (the layer adds the transform to an optional nullable property too), so
// an explicit `null` reaches the tool as an absent key. The contract's codec keeps such a `null`
// (CONTRACT §6), and a round trip no mark can cover would fail every case that has one, so those
// properties are left out of the sites: the loss is recorded in TRACKING.md#sf-517, not measured.
// Whether the source provably rejects `null` at a property (so that a `null` there can only be the
// codec's "absent"). What cannot be proved (an untyped node, a reference that does not resolve) is
// taken to admit it, and left out of the sites.
function rejectsNull(node, root, depth = 0) {
  if (depth > 32) return false;
  if (node === false) return true;
  if (!isRecord(node)) return false;
  if (typeof node.type === "string" && node.type !== "null") return true;
  if (Array.isArray(node.type) && !node.type.includes("null")) return true;
  if (Array.isArray(node.enum) && !node.enum.includes(null)) return true;
  if ("const" in node && node.const !== null) return true;
  for (const key of ["anyOf", "oneOf"]) {
    if (Array.isArray(node[key]) && node[key].length > 0 && node[key].every((b) => rejectsNull(b, root, depth + 1))) return true;
  }
  if (Array.isArray(node.allOf) && node.allOf.some((b) => rejectsNull(b, root, depth + 1))) return true;
  if (typeof node.$ref === "string" && node.$ref.startsWith("#")) {
    let target = root;
    for (const token of node.$ref.slice(1).split("/").slice(1).map((t) => unescape(decodeURIComponent(t)))) {
      target = isRecord(target) || Array.isArray(target) ? target[token] : undefined;
    }
    if (target !== undefined && rejectsNull(target, root, depth + 1)) return true;
  }
  return false;
}

// The source node a projection pointer stands for: the projection's path followed through the
// source, skipping the steps the round trip added (an `anyOf` wrapper around a nullable property).
function sourceAt(source, tokens) {
  let node = source;
  for (let i = 0; i < tokens.length; i++) {
    if (!isRecord(node) && !Array.isArray(node)) return undefined;
    if (tokens[i] in node) node = node[tokens[i]];
    else if (tokens[i] === "anyOf" && i + 1 < tokens.length) i++;
    else return undefined;
  }
  return node;
}

function optionalSites(node, pointer, out, source) {
  if (Array.isArray(node)) {
    node.forEach((child, i) => optionalSites(child, `${pointer}/${i}`, out, source));
    return;
  }
  if (!isRecord(node)) return;
  if (Array.isArray(node["x-optional"])) {
    const tokens = pointer === "" ? [] : pointer.slice(1).split("/").map(unescape);
    const original = sourceAt(source, tokens);
    for (const property of node["x-optional"]) {
      const was = isRecord(original) && isRecord(original.properties) ? original.properties[property] : undefined;
      if (rejectsNull(was, source)) out.push({ object: pointer, property: String(property) });
    }
  }
  for (const [key, value] of Object.entries(node)) {
    if (key === "x-optional" || key === "enum" || key === "const" || key === "default" || key === "examples") continue;
    optionalSites(value, `${pointer}/${escapeToken(key)}`, out, source);
  }
}

async function tool(schema) {
  const layers = LAYERS.map((name) => new compat[name](MODEL));
  const converted = compat.applyCompatLayer({ schema: structuredClone(schema), compatLayers: layers, mode: "aiSdkSchema" });
  const parameters = await converted.jsonSchema;
  const sites = [];
  optionalSites(parameters, "", sites, schema);
  const projection = { schema: parameters, dialect: "json-schema", strict: true };
  if (sites.length > 0) projection.codec = { kind: "null-means-absent", sites };
  return projection;
}

// ---- the structured-output path -----------------------------------------------------------------

const DELIBERATE = [
  ["Cannot flatten allOf", "allOf"],
  ['Cannot convert schema for OpenAI strict mode: "oneOf" and "anyOf"', "oneOf"],
];

function structuredOutput(schema) {
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

await wrapped.serve({
  translators: { "mastra-openai": tool, "mastra-openai-strict": structuredOutput },
  // Mastra has no client of its own: the entry is the call its code makes at the cited call site.
  entries: { "mastra-openai": tool, "mastra-openai-strict": structuredOutput },
});
