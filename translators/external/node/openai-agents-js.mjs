// Adapter: @openai/agents-core `tool({parameters: S, strict: true})`, the path a plain JSON-Schema
// tool takes in the OpenAI Agents SDK for JavaScript: `getSchemaAndParserFromInputType` calls
// `prepareOpenAIStrictToolSchema` (dist/utils/strictToolSchema.mjs), whose schema is sent and whose
// `normalizeInput` decodes the model's arguments before `execute` sees them.
// Table: dispositions/openai-agents-js.yaml.
//
// The codec: every optional property whose schema does not already admit null is wrapped as
// `anyOf: [X, {type: "null"}]` and made required; `normalizeInput` deletes a property whose value
// is null at exactly those synthetic wrappers (a null-means-absent codec). The wrappers are
// internal (a WeakMap), so the sites are derived by walking the projection beside the source.
//
// The entry runs `run(new Agent({model: new OpenAIResponsesModel(new OpenAI({fetch}), ...), tools}))`
// (@openai/agents-openai, the model the SDK's default provider builds) with a `Wire` fetch and
// reads `tools[0].parameters` and `tools[0].strict` from the Responses request. Tracing is disabled
// before the SDK loads (an exporter would post spans to the network).

import { Refusal, Wire, escapeToken, schemaNodes, wrap } from "./sf-adapter.mjs";

process.env.OPENAI_AGENTS_DISABLE_TRACING = "1";

const PACKAGE = "@openai/agents-core";

const wrapped = await wrap({
  name: "openai-agents-js",
  from: import.meta.url,
  packages: [PACKAGE, "@openai/agents-openai", "openai"],
  imports: async () => {
    const agents = await import(PACKAGE);
    agents.setTracingDisabled(true);
    return { agents, openaiModels: await import("@openai/agents-openai"), OpenAI: (await import("openai")).default };
  },
});
const { agents, openaiModels, OpenAI } = wrapped.modules;

const isRecord = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
const isNull = (v) => isRecord(v) && Object.keys(v).length === 1 && v.type === "null";

// The strict preparation refuses on purpose with a `UserError` whose message names the keyword
// (or the form) but no location: attribute it to the first node carrying that keyword.
// The third member, when present, tells the node apart further (the sibling, the reference).
const REFUSALS = [
  [/unsupported keyword `([^`]+)`/, (m) => m[1]],
  [/combining `\$ref` with sibling keyword `([^`]+)`/, () => "$ref", (m, node) => m[1] in node],
  [/combining `anyOf` with sibling keyword `([^`]+)`/, () => "anyOf", (m, node) => m[1] in node],
  [/nested `\$id` resource/, () => "$id"],
  [/reference `(.*)` to strict mode/, () => "$ref", (m, node) => node.$ref === m[1]],
  [/non-string `\$ref`/, () => "$ref"],
  [/invalid `anyOf`|`anyOf` branch containing optional object properties/, () => "anyOf"],
  [/typeless open JSON schema/, () => "properties"],
  [/open JSON schema object/, () => "additionalProperties"],
  [/optional JSON schema property accepts `null`/, () => "properties"],
  [/root `\$defs` value is not an object/, () => "$defs"],
];

function refusal(schema, error) {
  if (typeof schema === "boolean") return new Refusal(String(schema), "", error.message);
  for (const [pattern, keywordOf, also = () => true] of REFUSALS) {
    const m = pattern.exec(error.message);
    if (!m) continue;
    const keyword = keywordOf(m);
    for (const [node, pointer] of schemaNodes(schema)) {
      if (keyword in node && !(keyword === "$id" && pointer === "") && also(m, node)) return new Refusal(keyword, pointer, error.message);
    }
    return new Refusal(keyword, "", error.message);
  }
  return undefined;
}

// Walk the projection beside the source: the synthetic wrappers sit on properties the source
// leaves optional, where the source property is not itself `anyOf: [X, {type: null}]`.
// A reference into a location the preparation rewrote is re-pointed at a hoisted
// `$defs/__openai_strict_ref_N` (stabilizeLocalJsonSchemaReferences): walk that definition beside
// the node the source's reference resolves to.
function resolve(root, reference) {
  if (!reference.startsWith("#")) return undefined;
  let node = root;
  for (const token of reference.slice(1).split("/").slice(1)) {
    const key = decodeURIComponent(token).replaceAll("~1", "/").replaceAll("~0", "~");
    if (node === null || typeof node !== "object" || !(key in node)) return undefined;
    node = node[key];
  }
  return node;
}

function sites(projection, source, pointer, out, roots) {
  if (!isRecord(projection) || !isRecord(source)) return;
  const hoisted = typeof projection.$ref === "string" && /^#\/\$defs\/__openai_strict_ref_\d+$/.test(projection.$ref) ? projection.$ref.slice("#/$defs/".length) : undefined;
  if (hoisted && typeof source.$ref === "string" && !roots.walked.has(hoisted)) {
    roots.walked.add(hoisted);
    sites(roots.projection.$defs?.[hoisted], resolve(roots.source, source.$ref), `/$defs/${hoisted}`, out, roots);
  }
  if (isRecord(projection.properties) && isRecord(source.properties)) {
    const required = new Set(Array.isArray(source.required) ? source.required.map(String) : []);
    for (const [key, value] of Object.entries(projection.properties)) {
      const original = source.properties[key];
      const child = `${pointer}/properties/${escapeToken(key)}`;
      const wrapped = !required.has(key) && isRecord(value) && Array.isArray(value.anyOf) && value.anyOf.length === 2 && isNull(value.anyOf[1])
        && !(isRecord(original) && Array.isArray(original.anyOf) && original.anyOf.length === 2 && isNull(original.anyOf[1]));
      if (wrapped) {
        out.push({ object: pointer, property: key });
        sites(value.anyOf[0], original, `${child}/anyOf/0`, out, roots);
      } else {
        sites(value, original, child, out, roots);
      }
    }
  }
  for (const key of ["$defs", "definitions"]) {
    if (isRecord(projection[key]) && isRecord(source[key])) {
      for (const [name, value] of Object.entries(projection[key])) sites(value, source[key][name], `${pointer}/${key}/${escapeToken(name)}`, out, roots);
    }
  }
  if (Array.isArray(projection.anyOf) && Array.isArray(source.anyOf)) {
    projection.anyOf.forEach((value, i) => sites(value, source.anyOf[i], `${pointer}/anyOf/${i}`, out, roots));
  }
  if (Array.isArray(projection.items) && Array.isArray(source.items)) {
    projection.items.forEach((value, i) => sites(value, source.items[i], `${pointer}/items/${i}`, out, roots));
  } else if (isRecord(projection.items)) {
    sites(projection.items, source.items, `${pointer}/items`, out, roots);
  }
}

function made(schema) {
  try {
    return agents.tool({ name: "f", description: "d", parameters: structuredClone(schema), strict: true, execute: async () => "" });
  } catch (error) {
    if (error instanceof agents.UserError) {
      const cited = refusal(schema, error);
      if (cited) throw cited;
    }
    throw error;
  }
}

function projected(parameters, strict, schema) {
  const found = [];
  sites(parameters, schema, "", found, { projection: parameters, source: schema, walked: new Set() });
  const projection = { schema: parameters, dialect: "json-schema", strict };
  if (found.length > 0) projection.codec = { kind: "null-means-absent", sites: found };
  return projection;
}

function translate(schema) {
  const tool = made(schema);
  return projected(tool.parameters, tool.strict, schema);
}

const wire = new Wire();

async function entry(schema) {
  const client = new OpenAI({ apiKey: "x", fetch: wire.fetch, maxRetries: 0 });
  const agent = new agents.Agent({ name: "a", model: new openaiModels.OpenAIResponsesModel(client, "gpt-5.5"), tools: [made(schema)] });
  const body = await wire.send(() => agents.run(agent, "hi"));
  const sent = body.tools[0];
  return projected(sent.parameters, sent.strict, schema);
}

await wrapped.serve({
  translators: { "openai-agents-js": translate },
  entries: { "openai-agents-js": entry },
});
