"""Adapter: langchain-core's `convert_to_openai_tool(..., strict=True)`, what
`ChatOpenAI.bind_tools(tools, strict=True)` sends for a tool given as a JSON Schema dict: the
bare function dict `{name, description, parameters}` (a pre-wrapped `{"type": "function", ...}`
ignores `strict`, langchain-ai/langchain#40332). With `strict=True` it deep-copies the function and
runs `_recursive_set_additional_properties_false` over `parameters`: every `properties` made
fully required (none made nullable; langchain does not decode the model's answer back), and
`additionalProperties: false` set on nodes with `required`, an empty `properties` or any
`additionalProperties`. It never refuses; whatever it raises is a crash.

Table: dispositions/langchain-openai-strict.yaml.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from sf_adapter import serve  # noqa: E402

PACKAGE = "langchain-core"

try:
    from importlib.metadata import version

    from langchain_core.utils.function_calling import convert_to_openai_tool

    unavailable = None
    package_version = version(PACKAGE)
except ImportError as error:
    unavailable = f"cannot import {PACKAGE} ({error}): install translators/external/python/requirements.txt"
    package_version = "not installed"


def translate(schema):
    # convert_to_openai_tool deep-copies a dict function when strict is set: the source is not mutated.
    tool = convert_to_openai_tool({"name": "tool", "description": "a tool", "parameters": schema}, strict=True)
    function = tool["function"]
    return {"schema": function["parameters"], "dialect": "json-schema", "strict": function.get("strict", False)}


serve(
    "langchain-openai-strict",
    package_version,
    {"langchain-openai-strict": translate},
    packages={PACKAGE: package_version},
    unavailable=unavailable,
)
