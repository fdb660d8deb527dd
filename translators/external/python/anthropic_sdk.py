"""Adapter: what the anthropic SDK sends for a strict tool. `client.messages.create(tools=[{name,
input_schema, strict: True}])` (and `beta_tool(strict=True)`, whose `to_dict` copies its schema
into `input_schema`) passes the tool through the generated request builder unchanged: no code of
the SDK touches a tool's `input_schema` (read in anthropic/resources/messages/messages.py and
lib/tools/_beta_functions.py). The SDK's `transform_schema` serves `output_format` (a Python type
given to `messages.parse`), not tools; pydantic-ai reaches it for strict tools
(translators/external/python/pydantic_ai_anthropic.py).

The code path is therefore the schema as given; the entry makes the real call through an
`httpx2` mock transport (the SDK rejects an `httpx` client) and reads `tools[0].input_schema` from
the request body. Table: dispositions/anthropic-sdk.yaml.
"""

import copy
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from sf_adapter import Wire, Wrapped  # noqa: E402

PACKAGE = "anthropic"
MODEL = "claude-sonnet-5"

with Wrapped("anthropic-sdk", PACKAGE) as wrapped:
    import anthropic
    import httpx2


def translate(schema):
    # Nothing between `tools=[...]` and the request body rewrites `input_schema`.
    return {"schema": copy.deepcopy(schema), "dialect": "json-schema", "strict": True}


wire = Wire()


def entry(schema):
    client = anthropic.Anthropic(api_key="x", http_client=httpx2.Client(transport=wire.transport(httpx2)), max_retries=0)
    tool = {"name": "f", "description": "a tool", "input_schema": copy.deepcopy(schema), "strict": True}
    body = wire.send(lambda: client.messages.create(
        model=MODEL, max_tokens=16, messages=[{"role": "user", "content": "hi"}], tools=[tool]))
    sent = body["tools"][0]
    return {"schema": sent["input_schema"], "dialect": "json-schema", "strict": sent.get("strict", False)}


wrapped.serve(
    {"anthropic-sdk": translate},
    entries={"anthropic-sdk": entry},
)
