"""Adapter: pydantic-ai's `OpenAIJsonSchemaTransformer` with `strict=True`, the rewrite
`OpenAIChatModel`/`OpenAIResponsesModel` apply to a tool's JSON Schema when the tool is sent with
`strict: true`: `title`, `$schema`, `discriminator` and `default` removed; strict-incompatible
keywords (`minLength`, `maxLength`, `patternProperties`, `propertyNames`, ...), unsupported
string formats and look-around patterns moved into the description; `oneOf` renamed `anyOf`; a
`$ref` with siblings wrapped in a one-member `anyOf`; every node typed `object` closed and made
fully required (none made nullable; pydantic-ai does not decode the model's answer back). It
raises `UserError` on purpose for an array whose items have no type: that is its refusal.
Anything else it raises is a crash.

Table: dispositions/pydantic-ai-openai.yaml.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from sf_adapter import Refusal, serve  # noqa: E402
from sf_walk import first_node  # noqa: E402

PACKAGE = "pydantic-ai-slim"

try:
    from importlib.metadata import version

    from pydantic_ai.exceptions import UserError
    from pydantic_ai.profiles.openai import _TYPE_BEARING_KEYS, OpenAIJsonSchemaTransformer

    unavailable = None
    package_version = version(PACKAGE)
except ImportError as error:
    unavailable = f"cannot import {PACKAGE} ({error}): install translators/external/python/requirements.txt"
    package_version = "not installed"


def _untyped_array(node):
    items = node.get("items")
    typed = isinstance(items, dict) and any(key in items for key in _TYPE_BEARING_KEYS)
    return node.get("type") == "array" and not typed and not node.get("prefixItems")


def translate(schema):
    # The transformer deep-copies the schema before it walks it: the source is not mutated.
    try:
        projection = OpenAIJsonSchemaTransformer(schema, strict=True).walk()
    except UserError as error:
        message = str(error)
        if message.startswith("OpenAI strict mode requires array items to have a type"):
            pointer = first_node(schema, _untyped_array)
            if pointer is not None:
                node = next(n for n, p in __import__("sf_walk").schema_nodes(schema) if p == pointer)
                raise Refusal("items" if "items" in node else "type", pointer, message) from error
        if message.startswith("OpenAI does not support boolean `false` root schemas"):
            raise Refusal("$ref", "", message) from error
        raise
    return {"schema": projection, "dialect": "json-schema", "strict": True}


serve(
    "pydantic-ai-openai",
    package_version,
    {"pydantic-ai-openai": translate},
    packages={PACKAGE: package_version},
    unavailable=unavailable,
)
