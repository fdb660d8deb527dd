"""Adapter: the anthropic SDK's public `transform_schema` (anthropic/lib/_parse/_transform.py),
which the SDK applies to a schema given as `output_config.format` / a strict tool, and which
pydantic-ai's Anthropic transformer calls too. It rebuilds each node from the keywords it knows
(`type`, `enum`/`const` of primitives, `anyOf` (also from `oneOf`), `allOf`, `properties`,
`required`, `items`, supported string formats, `minItems` 0 or 1, `$ref`, `$defs`), closes every
object (`additionalProperties: false`) and writes every other keyword into the description as
`{key: value}`. It does not decode the model's answer back. It has no refusal by design: what it
raises (ValueError on a node without `type`, AssertionError on a type list, TypeError on a
boolean subschema) is a crash.

Table: dispositions/anthropic-sdk.yaml.
"""

import copy
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from sf_adapter import serve  # noqa: E402

PACKAGE = "anthropic"

try:
    from importlib.metadata import version

    from anthropic import transform_schema

    unavailable = None
    package_version = version(PACKAGE)
except ImportError as error:
    unavailable = f"cannot import {PACKAGE} ({error}): install translators/external/python/requirements.txt"
    package_version = "not installed"


def translate(schema):
    # transform_schema copies each node (`{**json_schema}`) before popping from it: the source is not mutated.
    return {"schema": transform_schema(copy.deepcopy(schema)), "dialect": "json-schema", "strict": True}


serve(
    "anthropic-sdk",
    package_version,
    {"anthropic-sdk": translate},
    packages={PACKAGE: package_version},
    unavailable=unavailable,
)
