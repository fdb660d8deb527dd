// Adapter: @oh-my-pi/pi-ai 18.2.11, one translator per provider path on which the package sends
// tools. Each answers through the conversion its provider runs on a tool (the table's
// `entry.path`: the package's exported schema functions, or the provider's own exported
// `convertTools`), and, asked `via: entry`, through the call a user of the package makes,
// `stream(model, {messages, tools}, {apiKey, fetch})` with a model from the package's own catalog
// (`getBundledModel`), reading the tool's schema back from the request body the provider built,
// captured by the `fetch` it was given (`StreamOptions.fetch`, which the package routes every
// provider request through). The stub answers 422 (an error the providers neither retry nor dump
// to disk; sf-adapter's `Wire` answers 400, which pi-ai writes to a file) and nothing reaches the
// network: `globalThis.fetch` is replaced too, and a request that reaches it stops the adapter.
// Tables: dispositions/pi-ai-*.yaml; what each path runs: README.md beside this file.
//
// Run under Bun (`run: [translators/external/pi-ai/node_modules/.bin/bun, <this file>, <name>]`):
// the package ships TypeScript that uses Bun's APIs. The process first re-executes itself with a
// fixed environment: HOME, TMPDIR and Bun's transpiler cache inside translators/external/pi-ai/.home
// (the package writes its log, install id and audit file under HOME; nothing is written outside the
// project), and none of the caller's PI_*/OMP_*/XDG_*/provider variables (PI_NO_STRICT, for one,
// would switch strict mode off).

import { spawn } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Refusal, schemaNodes, serve } from "../node/sf-adapter.mjs";

const here = new URL(".", import.meta.url);
const SANDBOX_ENV = "SCHEMA_FIDELITY_PI_AI_SANDBOX";
const TOOL = "probe";

// The package's HTTP layer is `fetch`: a request that reaches the global one escaped the stub
// the call was given. That is a fault of this adapter, not an answer: stop, so the harness
// reports it on the case.
function guardNetwork() {
  globalThis.fetch = async (input) => {
    console.error(`pi-ai adapter: a request reached globalThis.fetch (${String(input?.url ?? input)}); stopping`);
    process.exit(3);
  };
}

const isRecord = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
const cca = JSON.stringify({ token: "schema-fidelity", projectId: "schema-fidelity" });

// One entry per translator: the catalog model, the options the call needs, where the tool's
// schema is in the body, and the body's dialect.
const PATHS = {
  "pi-ai-google": {
    convert: async (ai, tool, model) => ({ schema: declaration((await provider("google-shared")).convertTools([tool], model)).parametersJsonSchema }),
    model: ["google", "gemini-2.5-flash"],
    read: (body) => declaration(body.tools)?.parametersJsonSchema,
    dialect: "json-schema",
  },
  "pi-ai-antigravity": {
    // normalizeAntigravityTools (not exported) moves a `parametersJsonSchema` to `parameters`
    // through normalizeSchemaForCCA: that one line is repeated here.
    convert: async (ai, tool, model) => ({ schema: ai.normalizeSchemaForCCA(declaration((await provider("google-shared")).convertTools([tool], model)).parametersJsonSchema) }),
    model: ["google-antigravity", "gemini-3-pro"],
    apiKey: cca,
    read: (body) => declaration(body.request?.tools)?.parameters,
    dialect: "gemini-proto",
  },
  "pi-ai-cca-claude": {
    convert: async (ai, tool, model) => ({ schema: declaration((await provider("google-shared")).convertTools([tool], model)).parameters }),
    model: ["google-antigravity", "claude-sonnet-4-5"],
    apiKey: cca,
    read: (body) => declaration(body.request?.tools)?.parameters,
    dialect: "json-schema",
  },
  "pi-ai-openai-completions": {
    convert: async (ai, tool, model) => completionsTool(ai, tool, model),
    model: ["github-copilot", "gpt-4.1"],
    read: (body) => functionTool(body.tools)?.function,
    strict: (sent) => sent.strict === true,
    take: (sent) => sent.parameters,
    dialect: "json-schema",
  },
  "pi-ai-openai-responses": {
    convert: async (ai, tool, model) => {
      let quarantined;
      const [sent] = (await provider("openai-responses")).convertTools([tool], model.compat.supportsStrictMode !== false, model, (_name, at) => {
        quarantined = at;
      });
      if (quarantined !== undefined) return { omitted: quarantined };
      return { schema: sent.parameters, strict: sent.strict === true };
    },
    model: ["openai", "gpt-5"],
    read: (body) => body.tools?.find((t) => t.type === "function" && t.name === TOOL),
    strict: (sent) => sent.strict === true,
    take: (sent) => sent.parameters,
    dialect: "json-schema",
  },
  "pi-ai-azure-responses": {
    convert: async (ai, tool) => ({ schema: ai.sanitizeSchemaForOpenAIResponses(ai.toolWireSchema(tool)) }),
    model: ["azure", "gpt-4.1"],
    options: { azureBaseUrl: "https://schema-fidelity.openai.azure.com/openai/v1" },
    read: (body) => body.tools?.find((t) => t.type === "function" && t.name === TOOL)?.parameters,
    dialect: "json-schema",
  },
  "pi-ai-anthropic": {
    // buildAnthropicBaseToolInputSchema (not exported) spreads the wire schema into an object
    // root before normalizeAnthropicToolSchema: those lines are repeated here.
    convert: async (ai, tool) => {
      const wire = ai.toolWireSchema(tool);
      return {
        schema: (await provider("anthropic")).normalizeAnthropicToolSchema({
          ...wire,
          type: "object",
          properties: isRecord(wire.properties) ? wire.properties : {},
          required: Array.isArray(wire.required) ? wire.required.filter((name) => typeof name === "string") : [],
        }),
      };
    },
    model: ["anthropic", "claude-sonnet-4-5"],
    read: (body) => body.tools?.find((t) => t.name === TOOL)?.input_schema,
    dialect: "json-schema",
  },
  "pi-ai-moonshot": {
    convert: async (ai, tool, model) => completionsTool(ai, tool, model),
    model: ["moonshot", "kimi-k2-0905-preview"],
    read: (body) => functionTool(body.tools)?.function?.parameters,
    dialect: "json-schema",
  },
  "pi-ai-ollama": {
    convert: async (ai, tool) => ({ schema: ai.sanitizeSchemaForOllama(ai.toolWireSchema(tool)) }),
    model: ["ollama-cloud", "deepseek-v3.2"],
    read: (body) => functionTool(body.tools)?.function?.parameters,
    dialect: "json-schema",
  },
  "pi-ai-bedrock": {
    convert: async (ai, tool) => ({ schema: ai.toolWireSchema(tool) }),
    model: ["amazon-bedrock", "anthropic.claude-3-5-haiku-20241022-v1:0"],
    read: (body) => body.toolConfig?.tools?.find((t) => t.toolSpec?.name === TOOL)?.toolSpec?.inputSchema?.json,
    dialect: "json-schema",
  },
};

function declaration(tools) {
  for (const group of tools ?? []) {
    const found = group.functionDeclarations?.find((d) => d.name === TOOL);
    if (found) return found;
  }
  return undefined;
}
const functionTool = (tools) => tools?.find((t) => t.type === "function" && t.function?.name === TOOL);

const providers = new Map();
async function provider(name) {
  if (!providers.has(name)) providers.set(name, await import(`@oh-my-pi/pi-ai/providers/${name}`));
  return providers.get(name);
}

// openai-completions' convertTools is not exported; its steps for one tool, with the provider's
// own functions: strict when the model supports it (PI_NO_STRICT is unset in the sandbox), the
// wire schema as it is when strict enforcement fails open, then the Moonshot or grammar flavour,
// then the enum/const check that leaves the tool out of the request.
function completionsTool(ai, tool, model) {
  const compat = model.compat;
  const base = compat.rejectRootObjectUnion ? ai.flattenExclusiveRequiredRootUnion(ai.toolWireSchema(tool)) : ai.toolWireSchema(tool);
  const adapted = ai.adaptSchemaForStrict(base, compat.supportsStrictMode !== false && tool.strict !== false);
  const includeStrict = compat.toolStrictMode !== "none" && adapted.strict;
  const wire = includeStrict ? adapted.schema : base;
  const emitted = compat.toolSchemaFlavor === "moonshot-mfjs"
    ? ai.normalizeSchemaForMoonshot(wire)
    : compat.toolSchemaFlavor === "grammar" ? ai.sanitizeSchemaForGrammar(wire) : wire;
  const violation = ai.findStrictToolSchemaViolation(emitted, "#", { rejectRootObjectUnion: compat.rejectRootObjectUnion });
  if (violation) return { omitted: violation };
  return { schema: emitted, strict: includeStrict };
}

function bodyText(body) {
  if (typeof body === "string") return body;
  if (body instanceof Uint8Array || body instanceof ArrayBuffer) return new TextDecoder().decode(body);
  throw new Error(`pi-ai adapter: a request body of an unexpected kind (${Object.prototype.toString.call(body)})`);
}

// The completions and Responses paths drop a tool whose emitted schema has an enum or const
// its own `type` rejects (findStrictToolSchemaViolation), by design ("omitted from the request
// ... Other tools are unaffected"), and log a warning naming the offending location: a refusal.
// The location is a pointer into the emitted schema; it is cited in the source where the same
// keyword stands there, else at the first source node carrying the keyword.
function omission(schema, warnings) {
  const warning = warnings.find((w) => w.includes(`"${TOOL}"`) && /omitted|quarantin/i.test(w));
  if (warning === undefined) return undefined;
  const at = /at (#[^\s,;)]*)/.exec(warning)?.[1];
  if (at === undefined) return new Refusal("", "", warning);
  return refusalAt(schema, at, warning);
}

function refusalAt(schema, at, message) {
  const warning = message;
  const tokens = at.slice(1).split("/").slice(1);
  const keyword = tokens.at(-1) ?? "";
  const pointer = tokens.length > 0 ? `/${tokens.slice(0, -1).join("/")}`.replace(/^\/$/, "") : "";
  for (const [node, where] of schemaNodes(schema)) {
    if (where === pointer && keyword in node) return new Refusal(keyword, pointer, warning);
  }
  for (const [node, where] of schemaNodes(schema)) {
    if (keyword in node) return new Refusal(keyword, where, warning);
  }
  return new Refusal(keyword, pointer, warning);
}

// Strict mode (adaptSchemaForStrict) lists every property in `required` and makes each optional
// one nullable; validateToolArguments then deletes a `null` at a property the source leaves
// optional (normalizeOptionalNullsForSchema) before the tool sees the arguments: a null-means-
// absent codec at exactly the properties optional in the source. The sites are found by walking
// the projection beside the source, following the rewrites strict mode makes: a property wrapped
// as `anyOf: [X, {type: "null"}]` is followed into X; a `$ref` with siblings was replaced by its
// target merged with them; a one-member `allOf` was merged into its node; a type list became an
// `anyOf` whose members all stand for the one source node; the Responses sanitizer appended
// `oneOf` members to `anyOf`. A property whose schema already admits null is not a site (CONTRACT.md
// section 6: its null is a value), although validateToolArguments deletes that null too: the
// source accepts the property both ways.
function admitsNull(schema, root, seen = new Set()) {
  if (!isRecord(schema)) return schema === true;
  if (typeof schema.$ref === "string") {
    // A reference this walk cannot follow (another document) might admit null: not a site.
    const target = resolvePointer(root, schema.$ref);
    if (target === undefined || seen.has(schema.$ref)) return target === undefined;
    seen.add(schema.$ref);
    if (admitsNull(target, root, seen)) return true;
  }
  if (schema.type === "null" || (Array.isArray(schema.type) && schema.type.includes("null"))) return true;
  if (schema.nullable === true || schema.const === null) return true;
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true;
  for (const key of ["anyOf", "oneOf"]) {
    if (Array.isArray(schema[key]) && schema[key].some((member) => admitsNull(member, root, seen))) return true;
  }
  return Object.keys(schema).every((key) => ["description", "title", "default", "examples", "$comment", "$ref"].includes(key)) && schema.$ref === undefined;
}

function codecSites(projection, source, pointer, out, root = source) {
  if (!isRecord(projection) || !isRecord(source)) return;
  if (typeof source.$ref === "string" && projection.$ref === undefined) {
    const target = resolvePointer(root, source.$ref);
    const { $ref: _, ...siblings } = source;
    if (isRecord(target)) source = { ...target, ...siblings };
  }
  if (Array.isArray(source.allOf) && source.allOf.length === 1 && isRecord(source.allOf[0]) && projection.allOf === undefined) {
    const { allOf: _, ...rest } = source;
    source = { ...rest, ...source.allOf[0] };
  }
  if (isRecord(projection.properties) && isRecord(source.properties)) {
    const required = new Set(Array.isArray(source.required) ? source.required.map(String) : []);
    for (const [key, value] of Object.entries(projection.properties)) {
      if (!Object.hasOwn(source.properties, key)) continue;
      const child = `${pointer}/properties/${escape(key)}`;
      if (!required.has(key) && !admitsNull(source.properties[key], root)) out.push({ object: pointer, property: key });
      const original = source.properties[key];
      const wrapped = !required.has(key) && isRecord(value) && Array.isArray(value.anyOf) && value.anyOf.length === 2 && isRecord(value.anyOf[1]) && value.anyOf[1].type === "null"
        && !(isRecord(original) && (Array.isArray(original.anyOf) || Array.isArray(original.oneOf) || Array.isArray(original.type)));
      codecSites(wrapped ? value.anyOf[0] : value, original, wrapped ? `${child}/anyOf/0` : child, out, root);
    }
  }
  if (isRecord(projection.$defs) && isRecord(source.$defs)) {
    for (const [name, value] of Object.entries(projection.$defs)) codecSites(value, source.$defs[name], `${pointer}/$defs/${escape(name)}`, out, root);
  }
  if (Array.isArray(projection.anyOf)) {
    const members = [...(Array.isArray(source.anyOf) ? source.anyOf : []), ...(Array.isArray(source.oneOf) && !Array.isArray(projection.oneOf) ? source.oneOf : [])];
    projection.anyOf.forEach((value, i) => codecSites(value, members.length > 0 ? members[i] : source, `${pointer}/anyOf/${i}`, out, root));
  }
  for (const key of ["oneOf", "allOf", "prefixItems"]) {
    if (Array.isArray(projection[key]) && Array.isArray(source[key])) {
      projection[key].forEach((value, i) => codecSites(value, source[key][i], `${pointer}/${key}/${i}`, out, root));
    }
  }
  if (isRecord(projection.items)) codecSites(projection.items, source.items, `${pointer}/items`, out, root);
}

function resolvePointer(root, reference) {
  if (!reference.startsWith("#/")) return undefined;
  let node = root;
  for (const raw of reference.slice(2).split("/")) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (!isRecord(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}
const escape = (token) => String(token).replaceAll("~", "~0").replaceAll("/", "~1");

async function main() {
  const name = process.argv[2];
  const path = PATHS[name];
  let piAi, catalog, utils, unavailable, version = "not installed";
  try {
    version = JSON.parse(readFileSync(new URL("node_modules/@oh-my-pi/pi-ai/package.json", here), "utf8")).version;
    piAi = await import("@oh-my-pi/pi-ai");
    catalog = await import("@oh-my-pi/pi-catalog");
    utils = await import("@oh-my-pi/pi-utils");
  } catch (error) {
    unavailable = `cannot load @oh-my-pi/pi-ai (${error.code ?? error.message}): run npm ci --prefix translators/external/pi-ai`;
  }
  if (path === undefined) unavailable = `pi-ai adapter: no provider path named ${JSON.stringify(name)} (one of ${Object.keys(PATHS).join(", ")})`;

  const warnings = [];
  if (unavailable === undefined) {
    // The package logs to a file under HOME by default; keep nothing, but hear the warnings
    // (a dropped tool is announced only there).
    utils.logger.setTransports({ console: false, file: false });
    utils.logger.registerLogSink((event) => {
      if (event.level === "warn" || event.level === "error") warnings.push(event.message);
    });
    guardNetwork();
  }

  const probe = (schema) => ({ name: TOOL, description: "schema-fidelity probe", parameters: structuredClone(schema) });

  // The projection both ways report: the schema sent, its dialect, the strict flag on the paths
  // that have one, and (when strict) the null-means-absent sites.
  function projection(schema, projected, strict) {
    const out = { schema: projected, dialect: path.dialect };
    if (path.strict) {
      out.strict = strict;
      if (strict) {
        const sites = [];
        codecSites(projected, schema, "", sites);
        if (sites.length > 0) out.codec = { kind: "null-means-absent", sites };
      }
    }
    return out;
  }

  // The conversion (entry.path). A throw is the package's own, reported as users see it: the
  // stream ends with the error's message (its class name is not part of what they get).
  async function translate(schema) {
    const model = catalog.getBundledModel(...path.model);
    let converted;
    try {
      converted = await path.convert(piAi, probe(schema), model);
    } catch (error) {
      throw new Error(error?.message ?? String(error));
    }
    if (converted.omitted !== undefined) {
      throw refusalAt(schema, converted.omitted, `Tool "${TOOL}" omitted from the request: its parameter schema is invalid for this provider at ${converted.omitted}`);
    }
    return projection(schema, converted.schema, converted.strict === true);
  }

  // The public call (entry.call), through the provider's request.
  async function entry(schema) {
    const model = catalog.getBundledModel(...path.model);
    let body;
    const fetch = async (input, init) => {
      body = init?.body ?? (input instanceof Request ? await input.text() : undefined);
      return new Response(JSON.stringify({ error: { message: "schema-fidelity stub: the request is recorded, never sent" } }), {
        status: 422,
        headers: { "content-type": "application/json" },
      });
    };
    warnings.length = 0;
    const context = { messages: [{ role: "user", content: "Call the probe tool.", timestamp: 0 }], tools: [probe(schema)] };
    const result = await piAi.stream(model, context, { apiKey: path.apiKey ?? "schema-fidelity", fetch, ...path.options }).result();
    if (body === undefined) {
      // The package threw while building the request: its own error, on this schema.
      throw new Error(result.errorMessage ?? `no request was built (stop reason ${result.stopReason})`);
    }
    const sent = path.read(JSON.parse(bodyText(body)));
    if (sent === undefined) {
      const refused = omission(schema, warnings);
      if (refused) throw refused;
      throw new Error(`the request was built without the tool, and no warning says why${warnings.length ? `: ${warnings.join(" | ")}` : ""}`);
    }
    return projection(schema, path.take ? path.take(sent) : sent, path.strict ? path.strict(sent) : false);
  }

  await serve({
    name: "pi-ai",
    version,
    translators: { [name]: translate },
    entries: { [name]: entry },
    packages: unavailable ? undefined : { "@oh-my-pi/pi-ai": version, bun: Bun.version },
    unavailable,
  });
}

// Re-execute in the sandbox (see the head of this file), or serve from inside it.
if (process.env[SANDBOX_ENV] === undefined) {
  const home = fileURLToPath(new URL(".home/", here));
  for (const dir of ["", "tmp", "transpiler-cache"]) mkdirSync(`${home}${dir}`, { recursive: true });
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    TMPDIR: `${home}tmp`,
    BUN_RUNTIME_TRANSPILER_CACHE_PATH: `${home}transpiler-cache`,
    NO_COLOR: "1",
    [SANDBOX_ENV]: home,
  };
  const child = spawn(process.execPath, ["--no-install", fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: "inherit", env });
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else {
  await main();
}
