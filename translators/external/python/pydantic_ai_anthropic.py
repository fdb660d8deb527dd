"""Adapter: pydantic-ai's Anthropic strict tools. An agent on an `anthropic:` model sends a tool
whose `strict` is True through the profile's `AnthropicJsonSchemaTransformer(strict=True)`
(pydantic_ai/providers/anthropic.py): pydantic-ai's walk (`title` and `$schema` removed, a scalar
`const` rewritten as a typed one-value `enum`), then the anthropic SDK's `transform_schema`
(anthropic/lib/_parse/_transform.py), which rebuilds each node from the keywords it knows, closes
every object and writes every other keyword into the description. This is the tool path on which
`transform_schema` is reached (the SDK itself applies it to `output_format` only).

Before sending, `AnthropicModel` checks the strict schemas of the request against Anthropic's
schema complexity limits (pydantic_ai/models/_anthropic_schema_limits.py, `exceeded_limit`) and
raises `ModelRequestRejectedError` instead of sending: a recursive schema, more than 24 optional
parameters, more than 16 union-typed parameters. Those are its refusals by design, cited here as
the recursive `$ref` or as the bound counted. What else it raises on a valid schema (ValueError on a
node without `type`, AssertionError on a type list, TypeError on a boolean subschema, from
transform_schema) is a crash.
The entry runs `Agent(AnthropicModel(...), tools=[tool]).run_sync(...)` through an httpx2 mock
transport and reads `tools[0].input_schema` from the request body.
Table: dispositions/pydantic-ai-anthropic.yaml.
"""

import copy
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from sf_adapter import LimitRefusal, Refusal, Wire, Wrapped  # noqa: E402
from sf_walk import first_node  # noqa: E402

PACKAGE = "pydantic-ai-slim"
MODEL = "claude-sonnet-5"

with Wrapped("pydantic-ai-anthropic", PACKAGE, "anthropic") as wrapped:
    import httpx2
    from pydantic_ai import Agent, Tool
    from pydantic_ai.exceptions import ModelRequestRejectedError
    from pydantic_ai.models._anthropic_schema_limits import exceeded_limit
    from pydantic_ai.models.anthropic import AnthropicModel
    from pydantic_ai.providers.anthropic import AnthropicJsonSchemaTransformer, AnthropicProvider


# `exceeded_limit`'s findings, as it words them, and the bound of dispositions/pydantic-ai-anthropic.yaml each is.
_COUNTED = re.compile(r"(\d+) (optional parameters|parameters with union types), over the limit of (\d+)")
_BOUNDS = {"optional parameters": "optional-parameters", "parameters with union types": "union-parameters"}


def _refusal(schema, exceeded, message):
    """The refusal `exceeded_limit`'s finding is: the recursive `$ref`, or the bound counted."""
    if "recursive schema" in exceeded:
        return Refusal("$ref", first_node(schema, lambda node: isinstance(node.get("$ref"), str)) or "", message)
    counted = _COUNTED.search(exceeded)
    if counted:
        return LimitRefusal(_BOUNDS[counted.group(2)], int(counted.group(1)), int(counted.group(3)), message)
    return None


def translate(schema):
    # What `_customize_tool_def` runs for a tool with `strict=True` on an Anthropic model profile,
    # then the check `AnthropicModel` makes of the request's strict schemas before sending it.
    projection = AnthropicJsonSchemaTransformer(copy.deepcopy(schema), strict=True).walk()
    exceeded = exceeded_limit([projection], None)
    if exceeded is not None:
        refusal = _refusal(schema, exceeded, f"exceeds Anthropic's schema complexity limits: {exceeded}")
        if refusal is None:
            raise ValueError(f"an unknown finding of exceeded_limit: {exceeded}")
        raise refusal
    return {"schema": projection, "dialect": "json-schema", "strict": True}


wire = Wire()


def _tool_function(**_arguments):
    return "ok"


def entry(schema):
    tool = Tool.from_schema(_tool_function, name="f", description="a tool", json_schema=copy.deepcopy(schema))
    tool.strict = True
    provider = AnthropicProvider(api_key="x", http_client=httpx2.AsyncClient(transport=wire.transport(httpx2)))
    agent = Agent(AnthropicModel(MODEL, provider=provider), tools=[tool])
    try:
        body = wire.send(lambda: agent.run_sync("hi"))
    except ModelRequestRejectedError as error:
        found = re.search(r"they have (.*?)\. Strict schemas", str(error))
        refusal = _refusal(schema, found.group(1), str(error)) if found else None
        if refusal is None:
            raise
        raise refusal from error
    sent = body["tools"][0]
    return {"schema": sent["input_schema"], "dialect": "json-schema", "strict": sent.get("strict", False)}


wrapped.serve(
    {"pydantic-ai-anthropic": translate},
    entries={"pydantic-ai-anthropic": entry},
)
