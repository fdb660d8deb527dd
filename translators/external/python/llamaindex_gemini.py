"""Adapter: LlamaIndex on Gemini (llama-index-llms-google-genai 0.11.3, llama-index-tools-mcp 0.6.0,
llama-index-core 0.14.25), what an MCP tool's input schema becomes when a LlamaIndex LLM or agent on
`GoogleGenAI` sends it. The public call: `GoogleGenAI(model=...).chat_with_tools(tools=McpToolSpec(
client=session).to_tool_list(), ...)`; a `FunctionAgent` on `GoogleGenAI` reaches the same code through
`achat_with_tools`/`astream_chat_with_tools`: all of them go through `GoogleGenAI._prepare_chat_with_tools`.

Two conversions run on the schema, in two packages:

1. llama-index-tools-mcp: `McpToolSpec.to_tool_list_async` builds a pydantic model from the tool's
   `inputSchema` (`create_model_from_json_schema`, `_create_model`, and the mixins of
   tool_spec_mixins.py: `_extract_fields`, `_resolve_field_type`, `_resolve_basic_type`, ...): one
   field per root property, its Python type read from `$ref`, `enum`, `anyOf` or the first `type`;
   a property the root does not require becomes `T | None` with default None. The model is the
   tool's `ToolMetadata.fn_schema`.
2. llama-index-llms-google-genai: `_prepare_chat_with_tools` -> `convert_schema_to_function_declaration`
   (utils.py) -> google-genai's `_transformers.t_schema(client, fn_schema)`: the model's
   `model_json_schema()`, then `process_schema` ($defs inlined, null members made `nullable`,
   `const` made a one-string `enum`, and, on the Gemini Developer API client, a ValueError for any
   truthy `additionalProperties`), then `types.Schema.model_validate`, sent as the declaration's
   proto `parameters`.

The conversion runs both (the tool listed from a never-connected `ClientSession` through
`McpToolSpec`, then `convert_schema_to_function_declaration` with a Developer API client); the entry
calls `GoogleGenAI(...).chat_with_tools` with the client's httpx transport stubbed and reads
`tools[0].functionDeclarations[0].parameters` from the request body. Runs in the genai2 venv
(llama-index-llms-google-genai pins google-genai below 3). Table: dispositions/llamaindex-gemini.yaml.
"""

import copy
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from sf_adapter import Refusal, Wire, Wrapped  # noqa: E402
from sf_walk import proto_json_names  # noqa: E402

PACKAGE = "llama-index-llms-google-genai"
PACKAGES = ("llama-index-llms-google-genai", "llama-index-tools-mcp", "llama-index-core", "google-genai")

with Wrapped("llamaindex-gemini", *PACKAGES, install="install translators/external/genai2/requirements.txt into translators/external/genai2/.venv") as wrapped:
    import asyncio

    import anyio
    import httpx
    from google import genai
    from llama_index.llms.google_genai import GoogleGenAI
    from llama_index.llms.google_genai.utils import convert_schema_to_function_declaration
    from llama_index.tools.mcp import McpToolSpec
    from mcp import ClientSession
    from mcp.types import ListToolsResult
    from mcp.types import Tool as MCPTool


def _mcp_tool(schema):
    """The tool as `ClientSession.list_tools` returns it; the mcp package's `Tool` model rejects a
    non-object `inputSchema`, so a boolean schema never reaches LlamaIndex: a refusal of the root."""
    try:
        return MCPTool(name="f", description="a tool", input_schema=copy.deepcopy(schema))
    except ValueError as error:
        if not isinstance(schema, bool):
            raise
        raise Refusal(str(schema).lower(), "", f"the mcp package rejects a non-object inputSchema: {error}") from error


class _Session(ClientSession):
    """A session that lists one tool and is never connected (the MCP transport stubbed)."""

    def __init__(self, tool):
        write, read = anyio.create_memory_object_stream(1)
        super().__init__(read, write)
        self._tool = tool

    async def list_tools(self, *args, **kwargs):
        return ListToolsResult(tools=[self._tool])


def _function_tools(schema):
    """What `McpToolSpec(client=session).to_tool_list_async()` returns for the one tool."""
    return asyncio.run(McpToolSpec(client=_Session(_mcp_tool(schema))).to_tool_list_async())


def _projection(parameters):
    return {"schema": proto_json_names(parameters if parameters is not None else {}), "dialect": "gemini-proto"}


def translate(schema):
    [tool] = _function_tools(schema)
    declaration = convert_schema_to_function_declaration(genai.Client(api_key="x"), tool)
    parameters = declaration.parameters
    return _projection(parameters.model_dump(mode="json", exclude_none=True) if parameters is not None else None)


wire = Wire()


def entry(schema):
    tools = _function_tools(schema)

    def call():
        # max_tokens and context_window given: the constructor then asks no model metadata.
        llm = GoogleGenAI(
            model="gemini-2.5-flash", api_key="x", max_tokens=1024, context_window=1048576, max_retries=0,
            http_options={"client_args": {"transport": wire.transport(httpx)}, "retry_options": {"attempts": 1}},
        )
        llm.chat_with_tools(tools=tools, user_msg="hi")

    body = wire.send(call)
    return _projection(body["tools"][0]["functionDeclarations"][0].get("parameters"))


wrapped.serve(
    {"llamaindex-gemini": translate},
    entries={"llamaindex-gemini": entry},
)
