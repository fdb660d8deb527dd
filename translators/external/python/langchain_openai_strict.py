"""Adapter: langchain-core's `convert_to_openai_tool(..., strict=True)`, what
`ChatOpenAI.bind_tools(tools, strict=True)` sends for a tool given as a JSON Schema dict: the
bare function dict `{name, description, parameters}` (a pre-wrapped `{"type": "function", ...}`
ignores `strict`, langchain-ai/langchain#40332). With `strict=True` it deep-copies the function and
runs `_recursive_set_additional_properties_false` over `parameters`: every `properties` made
fully required (none made nullable; langchain does not decode the model's answer back), and
`additionalProperties: false` set on nodes with `required`, an empty `properties` or any
`additionalProperties`. It never refuses; whatever it raises is a crash.
The entry binds the tool to a `ChatOpenAI` (langchain-openai) whose `http_client` has an httpx
mock transport, invokes it, and reads `tools[0].function.parameters` from the request body.

Table: dispositions/langchain-openai-strict.yaml.
"""

import copy
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from sf_adapter import Wire, Wrapped  # noqa: E402

PACKAGE = "langchain-core"

with Wrapped("langchain-openai-strict", PACKAGE, "langchain-openai", "openai") as wrapped:
    import httpx
    from langchain_core.utils.function_calling import convert_to_openai_tool
    from langchain_openai import ChatOpenAI


def _tool(schema):
    return {"name": "f", "description": "a tool", "parameters": schema}


def translate(schema):
    # convert_to_openai_tool deep-copies a dict function when strict is set: the source is not mutated.
    function = convert_to_openai_tool(_tool(schema), strict=True)["function"]
    return {"schema": function["parameters"], "dialect": "json-schema", "strict": function.get("strict", False)}


wire = Wire()


def entry(schema):
    chat = ChatOpenAI(model="gpt-5.5", api_key="x", http_client=httpx.Client(transport=wire.transport(httpx)), max_retries=0)
    body = wire.send(lambda: chat.bind_tools([_tool(copy.deepcopy(schema))], strict=True).invoke("hi"))
    function = body["tools"][0]["function"]
    return {"schema": function["parameters"], "dialect": "json-schema", "strict": function.get("strict", False)}


wrapped.serve(
    {"langchain-openai-strict": translate},
    entries={"langchain-openai-strict": entry},
)
