"""Adapter: google-genai's MCP tool conversion, `google.genai._mcp_utils.mcp_to_gemini_tool`, what
the SDK runs for every tool of an MCP session passed in `tools=[session]` (it is private, but it
is the real code path: `_extra_utils` calls it through `mcp_to_gemini_tools`). It keeps the keys
`_filter_to_supported_schema` knows (the snake_case field names of `types.JSONSchema`, plus
`additionalProperties`, `anyOf`, `oneOf`, `$defs`, `$ref`), builds a `types.JSONSchema` and converts
it with `types.Schema.from_json_schema` into the proto `Schema` sent as the declaration's
`parameters`. The projection is that `Schema`, dumped as its JSON (dialect gemini-proto: enum type
names upper-case). It has no refusal by design: whatever it raises is a crash.

Table: dispositions/google-genai-mcp.yaml.
"""

import copy
import os
import sys
from types import SimpleNamespace

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from sf_adapter import serve  # noqa: E402

PACKAGE = "google-genai"

try:
    from importlib.metadata import version

    from google.genai._mcp_utils import mcp_to_gemini_tool

    unavailable = None
    package_version = version(PACKAGE)
except ImportError as error:
    unavailable = f"cannot import {PACKAGE} ({error}): install translators/external/python/requirements.txt"
    package_version = "not installed"


def translate(schema):
    # `from_json_schema`'s `_resolve_ref` pops titles from the dict it resolves into: copy first.
    tool = SimpleNamespace(name="tool", description="a tool", inputSchema=copy.deepcopy(schema))
    parameters = mcp_to_gemini_tool(tool).function_declarations[0].parameters
    projection = parameters.model_dump(mode="json", exclude_none=True, by_alias=True) if parameters is not None else {}
    return {"schema": projection, "dialect": "gemini-proto"}


serve(
    "google-genai-mcp",
    package_version,
    {"google-genai-mcp": translate},
    packages={PACKAGE: package_version},
    unavailable=unavailable,
)
