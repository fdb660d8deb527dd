"""Adapter: langchain-google-genai's `convert_to_genai_function_declarations`
(`langchain_google_genai/_function_utils.py`), what `ChatGoogleGenerativeAI.bind_tools` runs on a
tool given as an OpenAI-format dict `{"type": "function", "function": {name, parameters}}`: it
rewrites the JSON Schema into a google-genai proto `Schema` (its `_dict_to_genai_schema` /
`_get_properties_from_schema` walk) sent as the declaration's `parameters`. The projection is that
`Schema` dumped as its JSON (dialect gemini-proto). It has no refusal by design: whatever it
raises is a crash.
The entry binds the tool to a `ChatGoogleGenerativeAI` whose google-genai client gets an httpx mock
transport (`client_args={"transport": ...}`), invokes it, and reads the declaration's `parameters`
from the request body (google-genai writes `anyOf` under its proto name `any_of`, which the
API's JSON parser reads as the same field: read under its JSON name).

Table: dispositions/langchain-google-genai.yaml.
"""

import copy
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from sf_adapter import Wire, Wrapped  # noqa: E402
from sf_walk import proto_json_names  # noqa: E402

# This file is named like the package it wraps: with its directory on sys.path (Python puts the
# script's directory first), `import langchain_google_genai` would import this file again instead
# of the package. sf_adapter is imported; take the directory off the path before the package.
sys.path[:] = [entry for entry in sys.path if os.path.abspath(entry or os.curdir) != HERE]

PACKAGE = "langchain-google-genai"

with Wrapped("langchain-google-genai", PACKAGE) as wrapped:
    import httpx
    from langchain_google_genai import ChatGoogleGenerativeAI
    from langchain_google_genai._function_utils import convert_to_genai_function_declarations


def _tool(schema):
    return {"type": "function", "function": {"name": "tool", "description": "a tool", "parameters": copy.deepcopy(schema)}}


def translate(schema):
    parameters = convert_to_genai_function_declarations([_tool(schema)])[0].function_declarations[0].parameters
    projection = parameters.model_dump(mode="json", exclude_none=True, by_alias=True) if parameters is not None else {}
    return {"schema": projection, "dialect": "gemini-proto"}


wire = Wire()


def entry(schema):
    chat = ChatGoogleGenerativeAI(model="gemini-2.5-flash", google_api_key="x", client_args={"transport": wire.transport(httpx)}, max_retries=0)
    body = wire.send(lambda: chat.bind_tools([_tool(schema)]).invoke("hi"))
    # google-genai writes `anyOf` under its proto name `any_of`, which the API reads as the same field.
    return {"schema": proto_json_names(body["tools"][0]["functionDeclarations"][0].get("parameters", {})), "dialect": "gemini-proto"}


wrapped.serve(
    {"langchain-google-genai": translate},
    entries={"langchain-google-genai": entry},
)
