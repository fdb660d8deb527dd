"""Adapter: openai-agents' `ensure_strict_json_schema` (agents/strict_schema.py), the rewrite the
Agents SDK applies to a function tool's (and an MCP tool's, with `convert_schemas_to_strict`)
JSON Schema before sending it with `strict: true`: objects closed, every property required (none
made nullable, and no codec: the SDK does not decode a model's answer back), `oneOf` renamed
`anyOf`, a one-member `allOf` merged, a `$ref` with annotation siblings inlined. It raises
`UserError` on purpose where it will not make a schema strict (an open object, a root `anyOf`, a
`$ref` or singleton `allOf` with constraining siblings, ...): those are its refusals, attributed
here to the first node holding the keyword. Anything else it raises (TypeError on a boolean
subschema, ...) is a crash and is reported as one.

Table: dispositions/openai-agents.yaml.
"""

import copy
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from sf_adapter import Refusal, serve  # noqa: E402
from sf_walk import first_node  # noqa: E402

PACKAGE = "openai-agents"

try:
    from importlib.metadata import version

    from agents.exceptions import UserError
    from agents.strict_schema import _REF_NON_CONSTRAINING_SIBLINGS, _ROOT_REF_NON_CONSTRAINING_SIBLINGS, ensure_strict_json_schema

    unavailable = None
    package_version = version(PACKAGE)
except ImportError as error:
    unavailable = f"cannot import {PACKAGE} ({error}): install translators/external/python/requirements.txt"
    package_version = "not installed"


def _ref_with_siblings(node, root):
    allowed = _ROOT_REF_NON_CONSTRAINING_SIBLINGS if node is root else _REF_NON_CONSTRAINING_SIBLINGS
    return "$ref" in node and bool(set(node) - {"$ref"} - allowed)


def _attribute(schema, message):
    """The keyword and source pointer a UserError is about (its message names no location)."""
    if "root of a strict JSON schema must not use `anyOf`" in message:
        # A root `oneOf` is renamed `anyOf`, and a one-member root `allOf` merged, before the root is checked.
        return ("anyOf" if "anyOf" in schema else "oneOf" if "oneOf" in schema else "allOf"), ""
    if "root of a strict JSON schema must be a non-nullable object" in message:
        return "type", ""
    if message.startswith("additionalProperties should not be set"):
        pointer = first_node(schema, lambda n: n.get("additionalProperties", False) is not False)
        return "additionalProperties", pointer
    if "`$ref` with incompatible sibling" in message:
        return "$ref", first_node(schema, lambda n: _ref_with_siblings(n, schema))
    if "singleton `allOf`" in message:
        return "allOf", first_node(schema, lambda n: isinstance(n.get("allOf"), list) and len(n["allOf"]) == 1)
    if "circular `$ref` chain" in message or "nested `$id` resource" in message:
        return "$ref", first_node(schema, lambda n: "$ref" in n)
    return None, None


def translate(schema):
    source = copy.deepcopy(schema)  # ensure_strict_json_schema mutates its argument
    try:
        projection = ensure_strict_json_schema(source)
    except UserError as error:
        keyword, pointer = _attribute(schema, str(error))
        if keyword is None or pointer is None:
            raise
        raise Refusal(keyword, pointer, str(error)) from error
    return {"schema": projection, "dialect": "json-schema", "strict": True}


serve(
    "openai-agents",
    package_version,
    {"openai-agents": translate},
    packages={PACKAGE: package_version},
    unavailable=unavailable,
)
