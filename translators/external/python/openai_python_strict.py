"""Adapter: the OpenAI Python SDK's strict function helper, `openai.pydantic_function_tool(Model)`.

`pydantic_function_tool` (openai/lib/_tools.py) builds `{type: function, function: {name, strict:
True, parameters: to_strict_json_schema(Model)}}`; `to_strict_json_schema` (openai/lib/_pydantic.py)
takes the model's JSON Schema (`openai._compat.model_json_schema`, i.e. `Model.model_json_schema()`)
and runs `_ensure_strict_json_schema` over it, in place: every node typed `object` without
`additionalProperties` gets `additionalProperties: false`, every `properties` becomes fully
required (none made nullable; the SDK decodes no `null` back), a one-member `allOf` is merged into
its node with `dict.update` (the member's keys overwrite the node's), a `null` `default` is
removed, and a `$ref` with siblings is replaced by its target resolved from the document root (the
node's own keys win over the target's). It walks `$defs`, `definitions`, `properties`, an object
`items`, `anyOf` and `allOf`; nothing else. It has no refusal of its own beyond `resolve_ref`'s
`ValueError` for a `$ref` with siblings that does not start with `#/` (attributed here to the first
node holding such a `$ref`); anything else it raises (TypeError on a boolean subschema, KeyError on
a pointer it cannot follow, RecursionError) is a crash.

How the corpus schema S reaches the helper, which takes a pydantic model and not a schema: the
model class overrides `model_json_schema`, the classmethod `openai._compat.model_json_schema`
calls, to return a deep copy of S. pydantic's own hooks (`__get_pydantic_json_schema__`, or a
`json_schema_extra` callable that replaces the dict) hand S through only when it has no local
`$ref`: pydantic's `GenerateJsonSchema.generate` counts every `$ref` against the definitions it
generated itself (`get_json_ref_counts`) and raises KeyError on any other, and it sorts the keys.
For a schema without `$ref` the two give `to_strict_json_schema` the same schema up to key
order (checked on the own corpus when the table was written). The schemas pydantic itself
generates are a subset of the corpus.

The entry makes the call users make, `OpenAI(...).chat.completions.create(model='gpt-5', messages,
tools=[openai.pydantic_function_tool(M, name='f')])`, on an httpx mock transport, and reads
`tools[0].function.parameters` and `.strict` from the request body. (`create` sends a tool's
`parameters` as given: a raw dict tool `{type: function, function: {name, parameters: S, strict:
True}}` goes out unchanged. `chat.completions.parse` only checks that each tool says `strict: True`
(`validate_input_tools`) and `responses.parse` only reshapes a `pydantic_function_tool` into the
Responses tool shape (`_make_tools`): neither rewrites a schema.)

Table: dispositions/openai-python-strict.yaml.
"""

import copy
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from sf_adapter import Refusal, Wire, Wrapped  # noqa: E402
from sf_walk import first_node  # noqa: E402

PACKAGE = "openai"
MODEL = "gpt-5"

with Wrapped("openai-python-strict", PACKAGE, "pydantic") as wrapped:
    import httpx
    import openai
    import pydantic
    from openai import OpenAI


def _model(schema):
    """A pydantic model whose JSON Schema is a deep copy of `schema` (see the module docstring)."""

    class M(pydantic.BaseModel):
        @classmethod
        def model_json_schema(cls, *args, **kwargs):
            return copy.deepcopy(schema)

    return M


def _refusal(schema, error):
    """resolve_ref's ValueError (a `$ref` with siblings that is not a `#/` pointer, or one that
    resolves to a non-object) as a refusal of that `$ref`, at the first node holding the reference
    its message quotes (its message names no location)."""
    message = str(error)
    match = re.match(r"Unexpected \$ref format (.*); Does not start with #/$|Expected `\$ref: (.*)` to resolved", message)
    if match is None:
        return None
    quoted = match.group(1) if match.group(1) is not None else repr(match.group(2))
    pointer = first_node(schema, lambda n: isinstance(n.get("$ref"), str) and repr(n["$ref"]) == quoted)
    if pointer is None:
        return None
    return Refusal("$ref", pointer, message)


def _tool(schema):
    try:
        return openai.pydantic_function_tool(_model(schema), name="f", description="a tool")
    except ValueError as error:
        refusal = _refusal(schema, error)
        if refusal is None:
            raise
        raise refusal from error


def translate(schema):
    # pydantic_function_tool -> to_strict_json_schema(M) -> _ensure_strict_json_schema
    function = _tool(schema)["function"]
    return {"schema": function["parameters"], "dialect": "json-schema", "strict": function.get("strict", False)}


wire = Wire()


def entry(schema):
    tool = _tool(schema)
    client = OpenAI(api_key="x", http_client=httpx.Client(transport=wire.transport(httpx)), max_retries=0)
    body = wire.send(lambda: client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "hi"}], tools=[tool]))
    function = body["tools"][0]["function"]
    return {"schema": function["parameters"], "dialect": "json-schema", "strict": function.get("strict", False)}


wrapped.serve(
    {"openai-python-strict": translate},
    entries={"openai-python-strict": entry},
)
