"""Adapter: openai-agents, the two paths a tool's JSON Schema takes to the OpenAI Responses API.

`openai-agents`: a function tool, `FunctionTool(params_json_schema=S, strict_json_schema=True)`
(what `@function_tool` builds by default). Its `__post_init__` runs `ensure_strict_json_schema`
(agents/strict_schema.py), and the Responses converter sends the result with `strict: true`:
objects closed, every property required (none made nullable, and no codec: the SDK does not decode
a model's answer back), `oneOf` renamed `anyOf`, a one-member `allOf` merged, a `$ref` with
annotation siblings inlined. It raises `UserError` on purpose where it will not make a schema
strict (an open object, a root `anyOf`, a `$ref` or singleton `allOf` with constraining siblings,
...): those are its refusals, attributed here to the first node holding the keyword. Anything
else it raises (TypeError on a boolean subschema, ...) is a crash.

`openai-agents-mcp`: an MCP server's tool on an agent with
`mcp_config={"convert_schemas_to_strict": True}` (a boolean input schema is rejected by the mcp
package's `Tool` model before openai-agents sees it: a refusal of the root).
`MCPUtil.to_function_tool` (agents/mcp/util.py)
adds `properties: {}` when the input schema has none, then tries `ensure_strict_json_schema`
(rejecting open objects unless the schema is `{}`) and, on any exception, sends the tool
non-strict with its schema as it was: it never refuses, it fails open.

The entries run `Runner.run(Agent(...))` on an `OpenAIResponsesModel` whose `AsyncOpenAI` client
has an httpx2 mock transport, and read `tools[0].parameters` and `tools[0].strict` from the
request body. Tracing is disabled before the SDK is imported (its exporter would otherwise post
spans to the network).
Tables: dispositions/openai-agents.yaml, dispositions/openai-agents-mcp.yaml.
"""

import copy
import os
import sys

os.environ["OPENAI_AGENTS_DISABLE_TRACING"] = "1"
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from sf_adapter import Refusal, Wire, Wrapped  # noqa: E402
from sf_walk import first_node  # noqa: E402

PACKAGE = "openai-agents"
MODEL = "gpt-5.5"

with Wrapped("openai-agents", PACKAGE, "openai", "mcp") as wrapped:
    import httpx2
    from agents import Agent, FunctionTool, OpenAIResponsesModel, Runner, set_tracing_disabled
    from agents.exceptions import UserError
    from agents.mcp import MCPServer, MCPUtil
    from agents.strict_schema import _REF_NON_CONSTRAINING_SIBLINGS, _ROOT_REF_NON_CONSTRAINING_SIBLINGS
    from mcp.types import Tool as MCPTool
    from openai import AsyncOpenAI

    set_tracing_disabled(True)


def _ref_with_siblings(node, root):
    allowed = _ROOT_REF_NON_CONSTRAINING_SIBLINGS if node is root else _REF_NON_CONSTRAINING_SIBLINGS
    return "$ref" in node and bool(set(node) - {"$ref"} - allowed)


def _attribute(schema, message):
    """The keyword and source pointer a UserError is about (its message names no location)."""
    if "root of a strict JSON schema must not use `anyOf`" in message:
        # A root `oneOf` is renamed `anyOf`, and a one-member root `allOf` merged, before the root is checked.
        return ("anyOf" if "anyOf" in schema else "oneOf" if "oneOf" in schema else "allOf"), ""
    if "root of a strict JSON schema must be a non-nullable object" in message:
        return "type", ""
    if message.startswith("additionalProperties should not be set"):
        pointer = first_node(schema, lambda n: n.get("additionalProperties", False) is not False)
        return "additionalProperties", pointer
    if "`$ref` with incompatible sibling" in message:
        return "$ref", first_node(schema, lambda n: _ref_with_siblings(n, schema))
    if "singleton `allOf`" in message:
        return "allOf", first_node(schema, lambda n: isinstance(n.get("allOf"), list) and len(n["allOf"]) == 1)
    if "circular `$ref` chain" in message or "nested `$id` resource" in message:
        return "$ref", first_node(schema, lambda n: "$ref" in n)
    return None, None


def _refusal(schema, error):
    keyword, pointer = _attribute(schema, str(error))
    if keyword is None or pointer is None:
        return None
    return Refusal(keyword, pointer, str(error))


async def _invoke(_context, _arguments):
    return "ok"


def _function_tool(schema):
    return FunctionTool(name="f", description="a tool", params_json_schema=copy.deepcopy(schema), on_invoke_tool=_invoke, strict_json_schema=True)


def translate(schema):
    # FunctionTool.__post_init__ runs ensure_strict_json_schema on a copy of params_json_schema.
    try:
        tool = _function_tool(schema)
    except UserError as error:
        refusal = _refusal(schema, error)
        if refusal is None:
            raise
        raise refusal from error
    return {"schema": tool.params_json_schema, "dialect": "json-schema", "strict": tool.strict_json_schema}


class _Server(MCPServer):
    """An MCP server that lists one tool with the source schema as its input schema."""

    def __init__(self, schema):
        super().__init__()
        self.schema = schema

    @property
    def name(self):
        return "schema-fidelity"

    async def connect(self):
        pass

    async def cleanup(self):
        pass

    async def list_tools(self, run_context=None, agent=None):
        return [_mcp_tool(self.schema)]

    async def call_tool(self, *args, **kwargs):
        raise NotImplementedError

    async def list_prompts(self):
        raise NotImplementedError

    async def get_prompt(self, *args, **kwargs):
        raise NotImplementedError


def _mcp_tool(schema):
    """The tool as an MCP server lists it. The mcp package validates `inputSchema` as an object
    (the MCP specification requires one), so a boolean root never reaches openai-agents: that
    validation is a refusal of the root by design, cited as the boolean."""
    if isinstance(schema, bool):
        try:
            MCPTool(name="f", description="a tool", input_schema=schema)
        except ValueError as error:
            raise Refusal(str(schema).lower(), "", f"the mcp package rejects a non-object inputSchema: {error}") from error
    return MCPTool(name="f", description="a tool", input_schema=copy.deepcopy(schema))


def translate_mcp(schema):
    tool = MCPUtil.to_function_tool(_mcp_tool(schema), _Server(schema), convert_schemas_to_strict=True)
    return {"schema": tool.params_json_schema, "dialect": "json-schema", "strict": tool.strict_json_schema}


wire = Wire()


def _client():
    return AsyncOpenAI(api_key="x", http_client=httpx2.AsyncClient(transport=wire.transport(httpx2)), max_retries=0)


def _sent(body):
    sent = body["tools"][0]
    return {"schema": sent["parameters"], "dialect": "json-schema", "strict": sent.get("strict", False)}


def entry(schema):
    try:
        agent = Agent(name="a", model=OpenAIResponsesModel(model=MODEL, openai_client=_client()), tools=[_function_tool(schema)])
    except UserError as error:
        refusal = _refusal(schema, error)
        if refusal is None:
            raise
        raise refusal from error
    return _sent(wire.send(lambda: Runner.run(agent, "hi")))


def entry_mcp(schema):
    _mcp_tool(schema)  # what the server's list_tools would fail to build
    agent = Agent(name="a", model=OpenAIResponsesModel(model=MODEL, openai_client=_client()),
                  mcp_servers=[_Server(schema)], mcp_config={"convert_schemas_to_strict": True})
    return _sent(wire.send(lambda: Runner.run(agent, "hi")))


wrapped.serve(
    {"openai-agents": translate, "openai-agents-mcp": translate_mcp},
    entries={"openai-agents": entry, "openai-agents-mcp": entry_mcp},
)
