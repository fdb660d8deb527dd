"""Adapter: pydantic-ai's `GoogleJsonSchemaTransformer`, the rewrite pydantic-ai applies to a tool's
JSON Schema before `GoogleModel` sends it to Gemini as `parametersJsonSchema` (`const` to a
one-value `enum`, string `format` into the description, `exclusiveMinimum`/`exclusiveMaximum`,
`title`, `examples` and `discriminator` removed, single-member unions collapsed).

Table: dispositions/pydantic-ai-google.yaml.
"""

import copy
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from sf_adapter import Refusal, Wire, Wrapped  # noqa: E402

PACKAGE = "pydantic-ai-slim"
MODEL = "gemini-2.5-flash"

with Wrapped("pydantic-ai-google", PACKAGE) as wrapped:
    import httpx2
    from pydantic_ai import Agent, Tool
    from pydantic_ai.models.google import GoogleModel
    from pydantic_ai.profiles.google import GoogleJsonSchemaTransformer
    from pydantic_ai.providers.google import GoogleProvider


def _boolean_root(schema, error):
    # Upstream reads the root as a dict and crashes on a boolean root (an MCP tool may send
    # `true`). The tool then cannot be sent: reported as a refusal of the root, which the oracle
    # holds to the table like any refusal (no refused row explains it, so it is the known
    # violation the table's `at_root` rows record), instead of a fault, which nothing covers.
    keyword = "true" if schema else "false"
    return Refusal(keyword, "", f"pydantic-ai cannot take a boolean root schema: {type(error).__name__}: {error}")


def translate(schema):
    # What `GoogleModel` does per tool: `GoogleJsonSchemaTransformer(schema, strict=...).walk()`.
    # `strict` only decides the flag it sends (VALIDATED mode), not the rewrite, so it is left unset.
    try:
        projection = GoogleJsonSchemaTransformer(schema).walk()
    except AttributeError as error:
        if not isinstance(schema, bool):
            raise
        raise _boolean_root(schema, error) from error
    return {"schema": projection, "dialect": "json-schema"}


wire = Wire()


def _tool_function(**_arguments):
    return "ok"


def entry(schema):
    tool = Tool.from_schema(_tool_function, name="f", description="a tool", json_schema=copy.deepcopy(schema))
    client = httpx2.AsyncClient(transport=wire.transport(httpx2), timeout=1200)
    agent = Agent(GoogleModel(MODEL, provider=GoogleProvider(api_key="x", http_client=client)), tools=[tool])
    try:
        body = wire.send(lambda: agent.run_sync("hi"))
    except AttributeError as error:
        if not isinstance(schema, bool):
            raise
        raise _boolean_root(schema, error) from error
    return {"schema": body["tools"][0]["functionDeclarations"][0]["parameters_json_schema"], "dialect": "json-schema"}


wrapped.serve(
    {"pydantic-ai-google": translate},
    entries={"pydantic-ai-google": entry},
)
