// Adapter: @langchain/google-common `jsonSchemaToGeminiParameters`, what @langchain/google-vertexai
// and @langchain/google-gauth (ChatVertexAI, ChatGoogle) send as a function declaration's
// `parameters` for a tool given as JSON Schema. Public and pure: called directly.
// The entry binds the tool, in the OpenAI format a JSON Schema tool takes, to a `ChatGoogleBase`
// model with an API key (the base ChatVertexAI and ChatGoogle extend; `convertToGeminiTools` calls
// `jsonSchemaToGeminiParameters` for it) and invokes it with `globalThis.fetch` replaced by a `Wire`
// stub, reading the declaration from the request body.
// Table: dispositions/langchain-google-js.yaml.

import { Refusal, Wire, escapeToken, wrap } from "./sf-adapter.mjs";

const PACKAGE = "@langchain/google-common";

const wrapped = await wrap({
  name: "langchain-google-js",
  from: import.meta.url,
  packages: [PACKAGE, "@langchain/core"],
  imports: async () => ({ common: await import(PACKAGE) }),
});
const { common } = wrapped.modules;

// removeAdditionalProperties throws three named errors on purpose ("Gemini cannot handle ..."),
// naming no location. Its walk visits every object and array value under the root (schema or
// not), in key order; the first node it would throw on is found by the same walk.
const isObject = (v) => typeof v === "object" && v !== null;
function unionRefused(node) {
  if (!("anyOf" in node || "oneOf" in node)) return undefined;
  const union = node.anyOf || node.oneOf;
  const keyword = node.anyOf ? "anyOf" : "oneOf";
  if (Array.isArray(union) && union.length === 2 && union.findIndex((t) => t?.type === "null") >= 0) return undefined;
  return keyword;
}
function typeRefused(node) {
  if (!Array.isArray(node.type)) return false;
  const len = node.type.length;
  const nullIndex = node.type.indexOf("null");
  return !((len === 2 && nullIndex >= 0) || (len === 1 && nullIndex !== 0));
}
// A throw on an object that is no schema (a `properties` map holding a property named `anyOf`, an
// object inside a `default`) is cited as that keyword on the schema node that holds it.
const MAPS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];
const VALUES = ["default", "const", "enum", "examples"];
function locate(node, pointer, message, cite = undefined) {
  if (!isObject(node) || Array.isArray(node)) return undefined;
  const at = (keyword) => cite ?? [keyword, pointer];
  if (/discriminatedUnion/.test(message)) {
    const keyword = unionRefused(node);
    if (keyword) return at(keyword);
  }
  else if (typeRefused(node)) return at("type");
  for (const [key, value] of Object.entries(node)) {
    const child = `${pointer}/${escapeToken(key)}`;
    let inner = cite;
    if (cite === undefined && MAPS.includes(key)) inner = undefined;
    else if (cite === undefined && VALUES.includes(key)) inner = [key, pointer];
    const mapCite = cite === undefined && MAPS.includes(key) ? [key, pointer] : inner;
    if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) {
        const found = locate(item, `${child}/${i}`, message, inner);
        if (found) return found;
      }
    } else if (cite === undefined && MAPS.includes(key) && isObject(value)) {
      // The map itself is walked first (as an object), then each entry as a schema.
      const own = /discriminatedUnion/.test(message) ? unionRefused(value) : typeRefused(value) ? "type" : undefined;
      if (own) return mapCite;
      for (const [name, entry] of Object.entries(value)) {
        const found = locate(entry, `${child}/${escapeToken(name)}`, message, undefined);
        if (found) return found;
      }
    } else {
      const found = locate(value, child, message, inner);
      if (found) return found;
    }
  }
  return undefined;
}

function cite(schema, error) {
  if (/zod_to_gemini_parameters: Gemini cannot handle/.test(error?.message)) {
    const found = locate(schema, "", error.message);
    if (found) return new Refusal(found[0], found[1], error.message);
  }
  return undefined;
}

function translate(schema) {
  try {
    return { schema: common.jsonSchemaToGeminiParameters(structuredClone(schema)), dialect: "gemini-proto" };
  } catch (error) {
    throw cite(schema, error) ?? error;
  }
}

const wire = new Wire();
globalThis.fetch = wire.fetch;

async function entry(schema) {
  const Chat = class extends common.ChatGoogleBase {
    buildAbstractedClient() {
      throw new Error("an API key is given: no other client is built");
    }
  };
  const chat = new Chat({ apiKey: "x", model: "gemini-2.5-flash", maxRetries: 0 });
  const tool = { type: "function", function: { name: "f", description: "a tool", parameters: structuredClone(schema) } };
  let body;
  try {
    body = await wire.send(() => chat.bindTools([tool]).invoke("hi"));
  } catch (error) {
    throw cite(schema, error) ?? error;
  }
  return { schema: body.tools[0].functionDeclarations[0].parameters, dialect: "gemini-proto" };
}

await wrapped.serve({
  translators: { "langchain-google-js": translate },
  entries: { "langchain-google-js": entry },
});
