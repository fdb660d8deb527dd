"""Adapter: litellm's Gemini tool path, `VertexGeminiConfig._map_function`, which every
`litellm.completion(model="gemini/..." or "vertex_ai/...", tools=[...])` call runs on the
OpenAI-style tools (from `map_openai_params`): `remove_additional_properties` and
`remove_strict_from_schema` over the whole tool, then `build_vertex_schema` on `parameters`
(unpack `$defs`, type lists to `anyOf`, `anyOf` null members to `nullable`, enum fixes, `items`
and `type: object` filled in, every key outside its `Schema` TypedDict dropped). The result is the
proto `parameters` of the function declaration (dialect gemini-proto).

Two translators, because the model decides the enum rule: for Gemini 3 and newer
(`_is_gemini_3_or_newer`) `map_openai_params` wraps the call in `with_integer_enums_that_fit(...,
True)`, which keeps an integer enum as `type: INTEGER` with its values as strings (when the
request's enum values fit Gemini's character limit); for Gemini 2.5 such an enum is dropped.
`litellm-gemini` is `gemini/gemini-2.5-flash`, `litellm-gemini-3` is `gemini/gemini-3-pro-preview`.

The entries call `litellm.completion` with an `HTTPHandler` over an httpx mock transport and read
`tools[0].function_declarations[0].parameters` from the request body. Runs in its own venv
(translators/external/litellm/.venv). `LITELLM_LOCAL_MODEL_COST_MAP` is set before the import so
that importing litellm does not fetch the model cost map from the network.
Tables: dispositions/litellm-gemini.yaml, dispositions/litellm-gemini-3.yaml.
"""

import copy
import os
import sys
from functools import partial

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from sf_adapter import Wire, Wrapped  # noqa: E402

PACKAGE = "litellm"
MODELS = {"litellm-gemini": "gemini/gemini-2.5-flash", "litellm-gemini-3": "gemini/gemini-3-pro-preview"}

with Wrapped("litellm-gemini", PACKAGE, install="install translators/external/litellm/requirements.txt into translators/external/litellm/.venv") as wrapped:
    import httpx
    import litellm
    from litellm.llms.custom_httpx.http_handler import HTTPHandler
    from litellm.llms.vertex_ai.common_utils import with_integer_enums_that_fit
    from litellm.llms.vertex_ai.gemini.vertex_and_google_ai_studio_gemini import VertexGeminiConfig


def _tools(schema):
    return [{"type": "function", "function": {"name": "f", "parameters": copy.deepcopy(schema)}}]


def _projection(declaration):
    if "parameters" not in declaration:
        raise ValueError(f"litellm sent no parameters: {declaration!r}")
    return {"schema": declaration["parameters"], "dialect": "gemini-proto"}


def conversion(translator):
    gemini_3 = VertexGeminiConfig._is_gemini_3_or_newer(MODELS[translator])

    def translate(schema):
        # What `map_openai_params` runs for `tools`. `_map_function` deep-copies the tools before
        # editing them. Everything it raises (AttributeError on a boolean subschema, ValueError on
        # deep nesting) is a crash and propagates: sf_adapter reports it as an `error` answer.
        build = partial(VertexGeminiConfig()._map_function, _tools(schema), {})
        return _projection(with_integer_enums_that_fit(build, gemini_3)[0]["function_declarations"][0])

    return translate


wire = Wire()


def through_completion(translator):
    def entry(schema):
        client = HTTPHandler(client=httpx.Client(transport=wire.transport(httpx)))
        body = wire.send(lambda: litellm.completion(
            model=MODELS[translator], messages=[{"role": "user", "content": "hi"}], tools=_tools(schema),
            api_key="x", client=client, num_retries=0, max_retries=0))
        return _projection(body["tools"][0]["function_declarations"][0])

    return entry


wrapped.serve(
    {name: conversion(name) for name in MODELS},
    entries={name: through_completion(name) for name in MODELS},
)
