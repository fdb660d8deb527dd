"""Adapter: Google ADK (google-adk 2.13.0), what an MCP tool's schema becomes when an ADK agent on
Gemini sends it. The public call: `Runner(agent=LlmAgent(model=Gemini(...), tools=[McpToolset(...)]))
.run_async(...)`; the toolset lists the server's tools as `MCPTool`s, and each tool's
`process_llm_request` replaces its declaration with `_build_fenced_declaration()`: the input schema
goes through `fence_schema_descriptions` (flows/llm_flows/context/_fencing.py: every `description`
string wrapped in untrusted-content markers, the markers elided from other strings and keys) and is
sent as the declaration's `parameters_json_schema`, since the `JSON_SCHEMA_FOR_FUNC_DECL` feature
is stable and on by default (the proto conversion `_to_gemini_schema` runs only when a user turns it
off). OpenAPI tools (`RestApiTool`) send their parameters the same way.

The conversion lists the tool through the toolset and builds its fenced declaration; the entry runs
the agent, its MCP session stubbed (a `ClientSession` that lists the one tool and is never
connected) and its Gemini client on an httpx mock transport, and reads
`tools[0].functionDeclarations[0].parameters_json_schema` from the request body. Runs in its own
venv (translators/external/genai2/.venv: google-adk pins google-genai below 3, the shared venv has
3.6.1). Table: dispositions/adk-gemini.yaml.
"""

import copy
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from sf_adapter import Refusal, Wire, Wrapped  # noqa: E402

PACKAGE = "google-adk"

with Wrapped("adk-gemini", PACKAGE, install="install translators/external/genai2/requirements.txt into translators/external/genai2/.venv") as wrapped:
    import asyncio

    import anyio
    import httpx
    from google import genai
    from google.adk.agents import LlmAgent
    from google.adk.models import Gemini
    from google.adk.runners import Runner
    from google.adk.sessions import InMemorySessionService
    from google.adk.tools.mcp_tool import McpToolset, StdioConnectionParams
    from google.genai import types
    from mcp import ClientSession, StdioServerParameters
    from mcp.types import ListToolsResult
    from mcp.types import Tool as MCPTool


def _mcp_tool(schema):
    """The tool as the MCP session lists it; the mcp package's `Tool` model rejects a non-object
    `inputSchema`, so a boolean schema never reaches ADK: a refusal of the root by design."""
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


def _toolset(tool):
    toolset = McpToolset(connection_params=StdioConnectionParams(server_params=StdioServerParameters(command="unused")))

    async def create_session(headers=None):
        return _Session(tool)

    toolset._mcp_session_manager.create_session = create_session
    return toolset


def _projection(declaration):
    if "parameters_json_schema" not in declaration:
        raise ValueError(f"ADK sent no parameters_json_schema: {declaration!r}")
    return {"schema": declaration["parameters_json_schema"], "dialect": "json-schema"}


def translate(schema):
    async def declare():
        [adk_tool] = await _toolset(_mcp_tool(schema)).get_tools()
        return adk_tool._build_fenced_declaration()

    declaration = asyncio.run(declare())
    return _projection({"parameters_json_schema": copy.deepcopy(declaration.parameters_json_schema)})


wire = Wire()


def entry(schema):
    tool = _mcp_tool(schema)

    async def call():
        client = genai.Client(api_key="x", http_options=types.HttpOptions(
            async_client_args={"transport": wire.transport(httpx)}, retry_options=types.HttpRetryOptions(attempts=1)))
        agent = LlmAgent(name="agent", model=Gemini(model="gemini-2.5-flash", client=client), tools=[_toolset(tool)])
        runner = Runner(agent=agent, app_name="app", session_service=InMemorySessionService(), auto_create_session=True)
        message = types.Content(role="user", parts=[types.Part(text="hi")])
        async for _event in runner.run_async(user_id="user", session_id="session", new_message=message):
            pass

    body = wire.send(call)
    return _projection(body["tools"][0]["functionDeclarations"][0])


wrapped.serve(
    {"adk-gemini": translate},
    entries={"adk-gemini": entry},
)
