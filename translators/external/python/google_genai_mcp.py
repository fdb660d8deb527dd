"""Adapter: google-genai's MCP tool conversion, `google.genai._mcp_utils.mcp_to_gemini_tool`, what
the SDK runs for every tool of an MCP session passed in `tools=[session]` (it is private, but it
is the real code path: `_extra_utils` calls it through `mcp_to_gemini_tools`). It keeps the keys
`_filter_to_supported_schema` knows (the snake_case field names of `types.JSONSchema`, plus
`additionalProperties`, `anyOf`, `oneOf`, `$defs`, `$ref`), builds a `types.JSONSchema` and converts
it with `types.Schema.from_json_schema` into the proto `Schema` sent as the declaration's
`parameters`. The projection is that `Schema`, dumped as its JSON (dialect gemini-proto: enum type
names upper-case). It has no refusal by design: whatever it raises is a crash. A boolean input
schema never reaches it: the mcp package's `Tool` model (what `ClientSession.list_tools` returns)
rejects a non-object `inputSchema`, a refusal of the root by design.
The entry lists the tool from a `ClientSession` (never connected) passed in `tools=[session]` to
`client.aio.models.generate_content`, whose httpx client gets a mock transport, and reads the
declaration's `parameters` from the request body (under their JSON names: google-genai writes
`anyOf` as `any_of`, which the API reads as the same field).

Table: dispositions/google-genai-mcp.yaml.
"""

import copy
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from sf_adapter import Refusal, Wire, Wrapped  # noqa: E402
from sf_walk import proto_json_names  # noqa: E402

PACKAGE = "google-genai"

with Wrapped("google-genai-mcp", PACKAGE) as wrapped:
    import anyio
    import httpx
    from google import genai
    from google.genai import types
    from google.genai._mcp_utils import mcp_to_gemini_tool
    from mcp import ClientSession
    from mcp.types import ListToolsResult
    from mcp.types import Tool as MCPTool


def _mcp_tool(schema):
    """The tool as `ClientSession.list_tools` returns it; a boolean schema is refused there."""
    try:
        # `from_json_schema`'s `_resolve_ref` pops titles from the dict it resolves into: copy first.
        return MCPTool(name="tool", description="a tool", input_schema=copy.deepcopy(schema))
    except ValueError as error:
        if not isinstance(schema, bool):
            raise
        raise Refusal(str(schema).lower(), "", f"the mcp package rejects a non-object inputSchema: {error}") from error


def translate(schema):
    parameters = mcp_to_gemini_tool(_mcp_tool(schema)).function_declarations[0].parameters
    projection = parameters.model_dump(mode="json", exclude_none=True, by_alias=True) if parameters is not None else {}
    return {"schema": projection, "dialect": "gemini-proto"}


class _Session(ClientSession):
    """A session that lists one tool and is never connected."""

    def __init__(self, tool):
        write, read = anyio.create_memory_object_stream(1)
        super().__init__(read, write)
        self._tool = tool

    async def list_tools(self, *args, **kwargs):
        return ListToolsResult(tools=[self._tool])


wire = Wire()


def entry(schema):
    tool = _mcp_tool(schema)

    async def call():
        client = genai.Client(api_key="x", http_options=types.HttpOptions(async_client_args={"transport": wire.transport(httpx)}))
        config = types.GenerateContentConfig(tools=[_Session(tool)])
        await client.aio.models.generate_content(model="gemini-2.5-flash", contents="hi", config=config)

    body = wire.send(call)
    return {"schema": proto_json_names(body["tools"][0]["functionDeclarations"][0].get("parameters", {})), "dialect": "gemini-proto"}


wrapped.serve(
    {"google-genai-mcp": translate},
    entries={"google-genai-mcp": entry},
)
