"""Adapter: litellm's Gemini / Vertex AI tool path, `VertexGeminiConfig._map_function`, which every
`litellm.completion(model="gemini/..." or "vertex_ai/...", tools=[...])` call runs on the OpenAI-style
tools: `remove_additional_properties` and `remove_strict_from_schema` over the whole tool, then
`build_vertex_schema` on `parameters` (unpack `$defs`, type lists to `anyOf`, `anyOf` null members to
`nullable`, enum fixes, `items` and `type: object` filled in, every key outside its `Schema` TypedDict
dropped). The result is the proto `parameters` of the function declaration (dialect gemini-proto).

Runs in its own venv (translators/external/litellm/.venv). `LITELLM_LOCAL_MODEL_COST_MAP` is set before
the import so that importing litellm does not fetch the model cost map from the network.

Table: dispositions/litellm-gemini.yaml.
"""

import os
import sys

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from sf_adapter import serve  # noqa: E402

PACKAGE = "litellm"

try:
    from importlib.metadata import version

    from litellm.llms.vertex_ai.gemini.vertex_and_google_ai_studio_gemini import VertexGeminiConfig

    unavailable = None
    package_version = version(PACKAGE)
except ImportError as error:
    unavailable = f"cannot import {PACKAGE} ({error}): install translators/external/litellm/requirements.txt into translators/external/litellm/.venv"
    package_version = "not installed"


def translate(schema):
    # `_map_function` deep-copies the tools before editing them, so the source is left untouched.
    # Everything it raises (AttributeError on a boolean subschema, ValueError on deep nesting) is a
    # crash and propagates: sf_adapter reports it as an `error` answer.
    tools = [{"type": "function", "function": {"name": "f", "parameters": schema}}]
    declaration = VertexGeminiConfig()._map_function(tools, {})[0]["function_declarations"][0]
    if "parameters" not in declaration:
        raise ValueError(f"litellm sent no parameters: {declaration!r}")
    return {"schema": declaration["parameters"], "dialect": "gemini-proto"}


serve(
    "litellm-gemini",
    package_version,
    {"litellm-gemini": translate},
    packages={PACKAGE: package_version},
    unavailable=unavailable,
)
