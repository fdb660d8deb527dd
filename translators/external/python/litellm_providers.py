"""Adapter: litellm's tool paths to Anthropic and to Bedrock Converse, what
`litellm.completion(model=..., tools=[{"type": "function", "function": {name, parameters}}])`
sends for an OpenAI-style tool.

- `litellm-anthropic` (`anthropic/claude-sonnet-4-5`): `AnthropicConfig.map_openai_params` ->
  `_map_tools` -> `_map_tool_helper` -> `sanitize_input_schema_for_anthropic`: the root's `type`
  forced to `object` and `properties` defaulted to `{}`, legacy `definitions` (and OpenAPI
  `components.schemas`) references inlined by `unpack_legacy_defs`, then every root key outside the
  `AnthropicInputSchema` TypedDict (`type`, `properties`, `additionalProperties`, `required`,
  `$defs`, `strict`) dropped; below the root nothing is touched. Read at `tools[0].input_schema`.
- `litellm-bedrock` (`bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0`, which litellm sends
  through Converse): `AmazonConverseConfig.map_openai_params`, then `_transform_request` ->
  `_transform_request_helper` -> `_prepare_request_params`, whose `filter_exceptions_from_params`
  removes every `None` (a JSON `null`) from the parameters, tools included, down to depth 20 ->
  `_process_tools_and_beta` -> `_tools_the_model_accepts` (lookaround patterns dropped for a model
  that does not take them) -> `_bedrock_tools_pt`: the
  root `$defs` popped and every `$ref` inlined by `unpack_defs` (by the reference's last segment;
  a cycle left as it is), `type: custom` made `object`, a root type that is not one JSON Schema
  type name made `object`; then `BedrockToolSpec` keeps only the root's `type`, `properties` and
  `required` (and `additionalProperties`, for a model that takes strict tools, as Claude does).
  Read at `toolConfig.tools[0].toolSpec.inputSchema.json`.

The conversions are called as `completion` calls them; the entries call `litellm.completion` with
an `HTTPHandler` over an httpx mock transport (the Bedrock call signs its request with static
credentials and a region; nothing reaches the network) and read the tool from the request body.
Runs in litellm's venv (translators/external/litellm/.venv). `LITELLM_LOCAL_MODEL_COST_MAP` is set
before the import so that importing litellm does not fetch the model cost map from the network.
Tables: dispositions/litellm-anthropic.yaml, dispositions/litellm-bedrock.yaml.
"""

import copy
import os
import sys

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from sf_adapter import Wire, Wrapped  # noqa: E402

PACKAGE = "litellm"
ANTHROPIC_MODEL = "anthropic/claude-sonnet-4-5"
BEDROCK_MODEL = "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0"

with Wrapped("litellm-providers", PACKAGE, install="install translators/external/litellm/requirements.txt into translators/external/litellm/.venv") as wrapped:
    import httpx
    import litellm
    from litellm.llms.anthropic.chat.transformation import AnthropicConfig
    from litellm.llms.bedrock.chat.converse_transformation import AmazonConverseConfig
    from litellm.llms.custom_httpx.http_handler import HTTPHandler


def _tools(schema):
    return [{"type": "function", "function": {"name": "f", "parameters": copy.deepcopy(schema)}}]


def _json_schema(schema):
    return {"schema": schema, "dialect": "json-schema"}


# Everything the conversions raise (TypeError on a boolean root, ValueError past the inlining
# budget) is a crash and propagates: sf_adapter reports it as an `error` answer.

def anthropic_conversion(schema):
    tools, _mcp_servers = AnthropicConfig()._map_tools(_tools(schema))
    return _json_schema(dict(tools[0]["input_schema"]))


def bedrock_conversion(schema):
    # What the Converse handler runs before it serialises the request: the parameters mapped, then
    # the request built from them.
    model = BEDROCK_MODEL.removeprefix("bedrock/")
    config = AmazonConverseConfig()
    params = config.map_openai_params(non_default_params={"tools": _tools(schema)}, optional_params={}, model=model, drop_params=False)
    request = config._transform_request(model=model, messages=[{"role": "user", "content": "hi"}], optional_params=params, litellm_params={}, headers={})
    return _json_schema(dict(request["toolConfig"]["tools"][0]["toolSpec"]["inputSchema"]["json"]))


wire = Wire()


def _completion(model, schema, **credentials):
    client = HTTPHandler(client=httpx.Client(transport=wire.transport(httpx)))
    return wire.send(lambda: litellm.completion(
        model=model, messages=[{"role": "user", "content": "hi"}], tools=_tools(schema),
        client=client, num_retries=0, max_retries=0, **credentials))


def anthropic_entry(schema):
    body = _completion(ANTHROPIC_MODEL, schema, api_key="x")
    return _json_schema(body["tools"][0]["input_schema"])


def bedrock_entry(schema):
    body = _completion(BEDROCK_MODEL, schema, aws_access_key_id="x", aws_secret_access_key="x", aws_region_name="us-east-1")
    return _json_schema(body["toolConfig"]["tools"][0]["toolSpec"]["inputSchema"]["json"])


wrapped.serve(
    {"litellm-anthropic": anthropic_conversion, "litellm-bedrock": bedrock_conversion},
    entries={"litellm-anthropic": anthropic_entry, "litellm-bedrock": bedrock_entry},
)
