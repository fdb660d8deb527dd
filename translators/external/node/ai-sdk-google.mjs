// Adapter: @ai-sdk/google 3.x (the AI SDK 6 line), what the Google Generative AI provider sends for
// a function tool. The chat model's `getArgs` (run by doGenerate/doStream before any request) calls
// `prepareFunctionDeclaration`: `parameters: convertJSONSchemaToOpenAPISchema(inputSchema)` (the
// proto `Schema`, dialect gemini-proto), or, when that conversion meets a recursive `$ref`, the
// source untouched as `parametersJsonSchema` (dialect json-schema). The dialect is reported per
// case. `getArgs` never fetches; the provider still gets a stub `fetch` that throws.
// The entry makes the provider's `doGenerate` (the LanguageModel call `generateText` makes with the
// tool's `inputSchema`, which `jsonSchema(S)` passes through unchanged) with a `Wire` fetch, and
// reads the function declaration from the request body.
// Table: dispositions/ai-sdk-google.yaml.

import { Refusal, Wire, schemaNodes, wrap } from "./sf-adapter.mjs";

const PACKAGE = "@ai-sdk/google";

const wrapped = await wrap({
  name: "ai-sdk-google",
  from: import.meta.url,
  packages: [PACKAGE],
  imports: async () => ({ google: await import(PACKAGE) }),
});
const { google } = wrapped.modules;

const stub = async () => {
  throw new Error("stub fetch: no request may be sent");
};

// The converter refuses on purpose (UnsupportedFunctionalityError) a reference it cannot resolve
// (anything but `#/$defs/name` or `#/definitions/name`) and an enum (or const) whose values do not
// share one primitive type matching `type`. Neither names a location: find the node.
const enumValues = (node) => (node.enum != null ? node.enum : "const" in node && node.const !== undefined ? [node.const] : undefined);
function enumRefused(node) {
  const values = enumValues(node);
  if (!Array.isArray(values)) return false;
  const type = node.type;
  const nullable = (Array.isArray(type) && type.includes("null")) || (type === undefined && values.includes(null));
  const rest = nullable ? values.filter((v) => v !== null) : values;
  if (values.length > 0 && values.every((v) => v === null) && (type === undefined || type === "null" || (Array.isArray(type) && type.includes("null")))) return false;
  if (rest.length === 0) return true;
  const allows = (t) => type === undefined || type === t || (Array.isArray(type) && type.includes(t));
  if (allows("string") && rest.every((v) => typeof v === "string")) return false;
  if ((allows("number") || allows("integer")) && rest.every((v) => typeof v === "number" && Number.isFinite(v))) {
    if (allows("number") || rest.every((v) => Number.isInteger(v))) return false;
  }
  if (allows("boolean") && rest.every((v) => typeof v === "boolean")) return false;
  return true;
}
function refusal(schema, error) {
  const functionality = String(error?.functionality ?? "");
  if (functionality.startsWith("JSON Schema reference: ")) {
    const reference = functionality.slice("JSON Schema reference: ".length);
    for (const [node, pointer] of schemaNodes(schema)) if (node.$ref === reference) return new Refusal("$ref", pointer, error.message);
  }
  if (functionality === "JSON Schema enum with mixed or unsupported values") {
    for (const [node, pointer] of schemaNodes(schema)) {
      if (enumRefused(node)) return new Refusal(node.enum != null ? "enum" : "const", pointer, error.message);
    }
  }
  return undefined;
}

const PROMPT = [{ role: "user", content: [{ type: "text", text: "hi" }] }];
const tools = (schema) => [{ type: "function", name: "f", inputSchema: structuredClone(schema) }];

function cited(schema, error) {
  if (error?.name === "AI_UnsupportedFunctionalityError") return refusal(schema, error);
  return undefined;
}

function fromDeclaration(declaration) {
  if ("parametersJsonSchema" in declaration) return { schema: declaration.parametersJsonSchema, dialect: "json-schema" };
  if (declaration.parameters !== undefined) return { schema: declaration.parameters, dialect: "gemini-proto" };
  // An object root without properties (isEmptyObjectSchema) is sent with no `parameters` at all:
  // a function that takes no arguments. Reported as the JSON Schema of "no arguments".
  return { schema: { type: "object", additionalProperties: false }, dialect: "json-schema" };
}

async function translate(schema) {
  const model = google.createGoogleGenerativeAI({ apiKey: "x", fetch: stub })("gemini-2.5-flash");
  let args;
  try {
    ({ args } = await model.getArgs({ prompt: PROMPT, tools: tools(schema) }));
  } catch (error) {
    throw cited(schema, error) ?? error;
  }
  return fromDeclaration(args.tools[0].functionDeclarations[0]);
}

const wire = new Wire();

async function entry(schema) {
  const model = google.createGoogleGenerativeAI({ apiKey: "x", fetch: wire.fetch })("gemini-2.5-flash");
  let body;
  try {
    body = await wire.send(() => model.doGenerate({ prompt: PROMPT, tools: tools(schema) }));
  } catch (error) {
    throw cited(schema, error) ?? error;
  }
  return fromDeclaration(body.tools[0].functionDeclarations[0]);
}

await wrapped.serve({
  translators: { "ai-sdk-google": translate },
  entries: { "ai-sdk-google": entry },
});
