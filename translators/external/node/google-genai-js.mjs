// Adapter: @google/genai (js-genai), the request `models.generateContent` builds for a function
// declaration's `parameters`. `processJsonSchema`/`tTool` are not exported, so the real call is
// made with `globalThis.fetch` replaced by a `Wire` stub that records the request body (it never
// reaches the network); the declaration is read back from that body. The code path and the entry
// are therefore one call here: the adapter answers through the entry itself.
// `tTool` sends `parameters` through `processJsonSchema` (the proto `Schema`, dialect
// gemini-proto), except a root carrying `$schema`, which it moves untouched to
// `parametersJsonSchema` (dialect json-schema): the dialect is reported per case.
// Table: dispositions/google-genai-js.yaml.

import { Refusal, Wire, escapeToken, wrap } from "./sf-adapter.mjs";

const PACKAGE = "@google/genai";
const here = new URL(".", import.meta.url);

const wrapped = await wrap({
  name: "google-genai-js",
  from: import.meta.url,
  packages: [PACKAGE],
  imports: async () => ({ genai: await import(PACKAGE) }),
});
const { genai } = wrapped.modules;

const wire = new Wire();
globalThis.fetch = wire.fetch;

// processJsonSchema throws two named errors on purpose. They name no location: find the node the
// same walk reaches first (properties, items, anyOf members; the two-branch null anyOf unwrapped).
const DELIBERATE = [
  ["type and anyOf cannot be both populated.", "anyOf", (n) => Boolean(n.type) && Boolean(n.anyOf)],
  ["type: null can not be the only possible type for the field.", "type", (n) => n.type === "null"],
];
function locate(node, pointer, test) {
  if (node === null || typeof node !== "object" || Array.isArray(node)) return undefined;
  if (test(node)) return pointer;
  const any = node.anyOf;
  if (any != null && any.length == 2) {
    if (any[0]?.type === "null") return locate(any[1], `${pointer}/anyOf/1`, test);
    if (any[1]?.type === "null") return locate(any[0], `${pointer}/anyOf/0`, test);
  }
  for (const [key, value] of Object.entries(node)) {
    if (value == null) continue;
    let found;
    if (key === "items") found = locate(value, `${pointer}/items`, test);
    else if (key === "anyOf") for (const [i, v] of value.entries()) found ??= v?.type == "null" ? undefined : locate(v, `${pointer}/anyOf/${i}`, test);
    else if (key === "properties") for (const [k, v] of Object.entries(value)) found ??= locate(v, `${pointer}/properties/${escapeToken(k)}`, test);
    if (found !== undefined) return found;
  }
  return undefined;
}

async function translate(schema) {
  const parameters = structuredClone(schema);
  let body;
  try {
    body = await wire.send(() =>
      new genai.GoogleGenAI({ apiKey: "x" }).models.generateContent({
        model: "gemini-2.5-flash",
        contents: "hi",
        config: { tools: [{ functionDeclarations: [{ name: "f", parameters }] }] },
      }),
    );
  } catch (error) {
    const deliberate = DELIBERATE.find(([message]) => error?.message === message);
    if (deliberate) {
      const pointer = locate(schema, "", deliberate[2]);
      if (pointer !== undefined) throw new Refusal(deliberate[1], pointer, error.message);
    }
    throw error;
  }
  const declaration = body.tools[0].functionDeclarations[0];
  if ("parametersJsonSchema" in declaration) return { schema: declaration.parametersJsonSchema, dialect: "json-schema" };
  if (!("parameters" in declaration)) throw new Error(`the request carries no parameters: ${JSON.stringify(declaration)}`);
  return { schema: declaration.parameters, dialect: "gemini-proto" };
}

await wrapped.serve({
  translators: { "google-genai-js": translate },
  // processJsonSchema is not exported: the path is the public call itself.
  entries: { "google-genai-js": translate },
});
