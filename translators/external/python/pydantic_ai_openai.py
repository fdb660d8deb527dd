"""Adapter: pydantic-ai's strict tools on an `openai:` model. `Agent('openai:...')` is an
`OpenAIResponsesModel` on the `OpenAIProvider`, whose profile (`OpenAIProvider.model_profile`,
pydantic_ai/providers/openai.py) picks the private `_OpenAIJsonSchemaTransformer`
(pydantic_ai/profiles/openai.py), not the public `OpenAIJsonSchemaTransformer` that other
OpenAI-compatible providers and fine-tuned `ft:` models get. For a tool sent with `strict=True` it
runs the public transformer's rewrite: `title`, `$schema`, `discriminator` and `default` removed; strict-incompatible
keywords (`minLength`, `maxLength`, `patternProperties`, `propertyNames`, ...), unsupported
string formats and look-around patterns moved into the description; `oneOf` renamed `anyOf`; a
`$ref` with siblings wrapped in a one-member `anyOf`; every node typed `object` closed and made
fully required (none made nullable; pydantic-ai does not decode the model's answer back). Unlike
the public one it keeps string length bounds (`_strict_supports_length_constraints`), turns a
one-item tuple bounded by `maxItems: 1` into `items`, and refuses any other `prefixItems` tuple.
It raises `UserError` on purpose for an array whose items have no type and for a tuple: those are
its refusals. Anything else it raises is a crash.
The entry runs `Agent(OpenAIResponsesModel(...), tools=[tool]).run_sync(...)` through an httpx2
mock transport and reads `tools[0].parameters` from the Responses request body.

Table: dispositions/pydantic-ai-openai.yaml.
"""

import copy
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from sf_adapter import Refusal, Wire, Wrapped  # noqa: E402
from sf_walk import first_node, schema_nodes  # noqa: E402

PACKAGE = "pydantic-ai-slim"
MODEL = "gpt-5.5"

with Wrapped("pydantic-ai-openai", PACKAGE) as wrapped:
    import httpx2
    from pydantic_ai import Agent, Tool
    from pydantic_ai.exceptions import UserError
    from pydantic_ai.models.openai import OpenAIResponsesModel
    from pydantic_ai.profiles.openai import _TYPE_BEARING_KEYS, _OpenAIJsonSchemaTransformer
    from pydantic_ai.providers.openai import OpenAIProvider


def _untyped_array(node):
    items = node.get("items")
    typed = isinstance(items, dict) and any(key in items for key in _TYPE_BEARING_KEYS)
    return node.get("type") == "array" and not typed and not node.get("prefixItems")


def _tuple(node):
    return node.get("type") == "array" and bool(node.get("prefixItems"))


def _refusal(schema, message):
    """The refusal a `UserError` of the transformer is (its message names no location), else None."""
    if "OpenAI strict mode requires array items to have a type" in message:
        pointer = first_node(schema, _untyped_array)
        if pointer is not None:
            node = next(n for n, p in schema_nodes(schema) if p == pointer)
            return Refusal("items" if "items" in node else "type", pointer, message)
    if "cannot use this tuple schema with `prefixItems` in OpenAI strict mode" in message:
        pointer = first_node(schema, _tuple)
        if pointer is not None:
            return Refusal("prefixItems", pointer, message)
    if "OpenAI does not support boolean `false` root schemas" in message:
        return Refusal("$ref", "", message)
    return None


def translate(schema):
    # What `_customize_tool_def` runs for a tool with `strict=True` under the `openai:` profile.
    # The transformer deep-copies the schema before it walks it: the source is not mutated.
    try:
        projection = _OpenAIJsonSchemaTransformer(schema, strict=True).walk()
    except UserError as error:
        refusal = _refusal(schema, str(error))
        if refusal is None:
            raise
        raise refusal from error
    return {"schema": projection, "dialect": "json-schema", "strict": True}


wire = Wire()


def _tool_function(**_arguments):
    return "ok"


def entry(schema):
    tool = Tool.from_schema(_tool_function, name="f", description="a tool", json_schema=copy.deepcopy(schema))
    tool.strict = True
    provider = OpenAIProvider(api_key="x", http_client=httpx2.AsyncClient(transport=wire.transport(httpx2)))
    agent = Agent(OpenAIResponsesModel(MODEL, provider=provider), tools=[tool])
    try:
        body = wire.send(lambda: agent.run_sync("hi"))
    except UserError as error:
        # `_customize_tool_def` prefixes the transformer's message with the tool's name.
        refusal = _refusal(schema, str(error))
        if refusal is None:
            raise
        raise refusal from error
    sent = body["tools"][0]
    return {"schema": sent["parameters"], "dialect": "json-schema", "strict": sent.get("strict", False)}


wrapped.serve(
    {"pydantic-ai-openai": translate},
    entries={"pydantic-ai-openai": entry},
)
