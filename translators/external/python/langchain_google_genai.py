"""Adapter: langchain-google-genai's `convert_to_genai_function_declarations`
(`langchain_google_genai/_function_utils.py`), what `ChatGoogleGenerativeAI.bind_tools` runs on a
tool given as an OpenAI-format dict `{"type": "function", "function": {name, parameters}}`: it
rewrites the JSON Schema into a google-genai proto `Schema` (its `_dict_to_genai_schema` /
`_get_properties_from_schema` walk) sent as the declaration's `parameters`. The projection is that
`Schema` dumped as its JSON (dialect gemini-proto). It has no refusal by design: whatever it
raises is a crash.

Table: dispositions/langchain-google-genai.yaml.
"""

import copy
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from sf_adapter import serve  # noqa: E402

# This file is named like the package it wraps: with its directory on sys.path (Python puts the
# script's directory first), `import langchain_google_genai` would import this file again instead
# of the package. sf_adapter is imported; take the directory off the path before the package.
sys.path[:] = [entry for entry in sys.path if os.path.abspath(entry or os.curdir) != HERE]

PACKAGE = "langchain-google-genai"

try:
    from importlib.metadata import version

    from langchain_google_genai._function_utils import convert_to_genai_function_declarations

    unavailable = None
    package_version = version(PACKAGE)
except ImportError as error:
    unavailable = f"cannot import {PACKAGE} ({error}): install translators/external/python/requirements.txt"
    package_version = "not installed"


def translate(schema):
    tool = {"type": "function", "function": {"name": "tool", "description": "a tool", "parameters": copy.deepcopy(schema)}}
    parameters = convert_to_genai_function_declarations([tool])[0].function_declarations[0].parameters
    projection = parameters.model_dump(mode="json", exclude_none=True, by_alias=True) if parameters is not None else {}
    return {"schema": projection, "dialect": "gemini-proto"}


serve(
    "langchain-google-genai",
    package_version,
    {"langchain-google-genai": translate},
    packages={PACKAGE: package_version},
    unavailable=unavailable,
)
