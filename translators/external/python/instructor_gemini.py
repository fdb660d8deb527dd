"""Adapter: instructor's Gemini tool declaration on the google-genai path,
`instructor.from_genai(genai.Client(...), mode=instructor.Mode.GENAI_TOOLS)` then
`client.chat.completions.create(response_model=M, ...)`. instructor's `GenAIToolsHandler.prepare_request`
(instructor/v2/providers/genai/handlers.py) builds the one function declaration it forces the model
to call: `parameters=map_to_genai_schema(_get_model_schema(prepared_model))`
(instructor/v2/providers/gemini/utils.py), that is `map_to_gemini_function_schema` (jsonref inlines
every `$ref`, the root `$defs` is popped, `transform_schema_node` adds `format: "enum"` beside an
`enum` and merges a two-member `anyOf` with one `{type: null}` member into its other member made
`nullable`, then the node is read into instructor's `FunctionSchema` pydantic model, which keeps
only description, enum, example, format, nullable, items, required, type, anyOf and properties),
then the keys renamed for google-genai and read into `types.Schema`. The projection is that
`Schema` as google-genai writes it into the request (dialect gemini-proto).

How S reaches instructor: instructor takes a pydantic model and reads its schema with
`response_model.model_json_schema()` (`_get_model_schema`), on the subclass `prepare_response_model`
makes of it (`response_schema`: `create_model(name, __base__=(M, ResponseSchema))`). The adapter's
model overrides that classmethod to return a deep copy of S, so instructor's code sees exactly S.
pydantic's own hooks cannot carry S: a `__get_pydantic_json_schema__` or `json_schema_extra` result
goes through `GenerateJsonSchema.generate`, which sorts every node's keys and raises KeyError on a
`$ref` it did not generate. The schemas pydantic generates for real models are a subset of the
corpus (local `#/$defs/Name` references, `anyOf` with `{type: null}` for optional fields, ...).

The adapter blocks sockets: jsonref's default loader fetches a `$ref` to another document (and to
an embedded resource by its `$id`, which jsonref does not read) over the network with requests;
here that fetch fails and the call raises, which is reported as the crash it is.

The entry makes the public call with the google-genai client's httpx2 transport stubbed
(`http_options=HttpOptions(client_args={"transport": ...})`) and reads the declaration's
`parameters` from the request body (google-genai writes some fields under their proto names,
`any_of`, `max_items`, ..., which the API's JSON parser reads as the same fields: read under their
JSON names).

Table: dispositions/instructor-gemini.yaml.
"""

import copy
import os
import socket
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from sf_adapter import Wire, Wrapped  # noqa: E402
from sf_walk import proto_json_names  # noqa: E402


def _no_network(*_args, **_kwargs):
    raise OSError("schema-fidelity adapter: no network (a reference to another document cannot be fetched)")


socket.socket.connect = _no_network
socket.create_connection = _no_network
socket.getaddrinfo = _no_network

PACKAGE = "instructor"
MODEL = "gemini-2.5-flash"
INSTALL = "install translators/external/instructor/requirements.txt into translators/external/instructor/.venv"

with Wrapped("instructor-gemini", PACKAGE, "google-genai", "jsonref", "pydantic", install=INSTALL) as wrapped:
    import httpx2
    import instructor
    from google import genai
    from google.genai import types
    from instructor.v2.core.response_model import prepare_response_model
    from instructor.v2.providers.gemini import utils as gemini_utils
    from pydantic import BaseModel


def _model(schema):
    """A response model whose JSON Schema, as instructor reads it, is exactly `schema`."""

    class Arguments(BaseModel):
        @classmethod
        def model_json_schema(cls, *_args, **_kwargs):
            return copy.deepcopy(schema)

    return Arguments


def _same_recursion_error(call):
    """Run `call`; a RecursionError (instructor recursing into a reference cycle) is raised again
    with CPython's message stem only. The rest of its message names the C call the depth limit was
    hit in ("while calling a Python object", "in comparison", ...), which varies with the stack
    depth the call started from, so the path and the public call would differ in text alone."""
    try:
        return call()
    except RecursionError as error:
        raise RecursionError("maximum recursion depth exceeded") from error


def _wire_json(parameters):
    # What google-genai writes into the request: the Schema's set fields under their field names.
    return proto_json_names(parameters.model_dump(mode="json", exclude_none=True)) if parameters is not None else {}


def translate(schema):
    # GenAIToolsHandler.prepare_request: prepare_response_model, then
    # map_to_genai_schema(_get_model_schema(prepared_model)) as the declaration's parameters.
    prepared = prepare_response_model(_model(schema))
    parameters = _same_recursion_error(lambda: gemini_utils.map_to_genai_schema(gemini_utils._get_model_schema(prepared)))
    declaration = types.FunctionDeclaration(name="Arguments", parameters=parameters)
    return {"schema": _wire_json(declaration.parameters), "dialect": "gemini-proto"}


wire = Wire()


def entry(schema):
    client = instructor.from_genai(
        genai.Client(api_key="x", http_options=types.HttpOptions(client_args={"transport": wire.transport(httpx2)})),
        mode=instructor.Mode.GENAI_TOOLS,
    )
    body = _same_recursion_error(lambda: wire.send(lambda: client.chat.completions.create(
        model=MODEL, response_model=_model(schema), messages=[{"role": "user", "content": "hi"}], max_retries=0)))
    declaration = body["tools"][0]["functionDeclarations"][0]
    return {"schema": proto_json_names(declaration.get("parameters", {})), "dialect": "gemini-proto"}


wrapped.serve(
    {"instructor-gemini": translate},
    entries={"instructor-gemini": entry},
)
