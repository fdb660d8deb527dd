"""schema-fidelity adapter for the translator `@NAME@`, written by `schema-fidelity init`.

`schema-fidelity run` starts this script from the project root (the `run:` of
@TABLE@) and speaks protocol version 1 with it, one JSON object per line: a handshake
(`{"start": {"protocol": 1}}`, answered `started` or `unavailable`), then one request per schema
(`{"id", "translator", "schema"}`), each answered with what the translator made of it. Only those
answers may go to stdout: while serving, `print` and anything a library prints go to stderr.

The lines left to you carry a TODO marker, and `schema-fidelity lint` lists each until it is gone.
Until `translate()` is filled in, the handshake answers `unavailable`, so a run says what to do
instead of failing every case. Standard library only: the package you check is the only import
to add.
"""

import inspect
import json
import sys
import traceback

NAME = "@NAME@"
ADAPTER = "@ADAPTER@"
PROTOCOL = 1
# The marker `schema-fidelity init` leaves where something is to be filled in (spelled in two parts
# so that this line is not one of them).
MARKER = "TODO" + "(schema-fidelity)"

VERSION = "unknown"
UNAVAILABLE = None
try:
    # TODO(schema-fidelity): import the package whose translator you check, and read its version
    # (the reports show it), e.g.
    #   import my_package
    #   from importlib.metadata import version
    #   VERSION = version("my-package")
    # An ImportError makes the handshake answer `unavailable` with the reason below (the run then
    # says so, with the table's `install:` command), instead of failing every case.
    pass
except ImportError as error:
    VERSION = "not installed"
    UNAVAILABLE = f"cannot import the package {ADAPTER} checks: {error}"


class Refusal(Exception):
    """The translator refuses the schema by design: the keyword it refuses (one with a `refused`
    row in the table) and the JSON pointer, into the source schema, of the node holding it."""

    def __init__(self, keyword, pointer, message):
        super().__init__(message)
        self.keyword = keyword
        self.pointer = pointer
        self.message = message

    def cites(self):
        return {"keyword": self.keyword, "pointer": self.pointer, "message": self.message}


class LimitRefusal(Refusal):
    """The translator refuses because the schema exceeds a limit: its name (a `limits:` entry of
    the table's target or a `bounds:` entry of the table), the translator's count and the limit."""

    def __init__(self, limit, measured, value, message):
        super().__init__("", "", message)
        self.limit = limit
        self.measured = measured
        self.value = value

    def cites(self):
        return {"limit": self.limit, "measured": self.measured, "value": self.value, "message": self.message}


def translate(schema):
    """What the translator makes of `schema` (a JSON Schema, draft 2020-12: a dict or a bool),
    through the code path the table's `entry.path` names.

    Return the projection, what the translator sends to the provider:
        {"schema": ..., "dialect": "json-schema"}      # or "gemini-proto", "openapi-3.0"
    with, where they apply, "strict": True/False (the flag it is sent with) and "codec" (how
    instances change shape: {"kind": "null-means-absent", "sites": [{"object": POINTER,
    "property": NAME}]}). Raise Refusal(keyword, pointer, message) where the translator refuses by
    design, or LimitRefusal(limit, measured, value, message); any other exception is reported as a
    crash on that schema, with its message (a `crash:` mark in the table can cover it).
    """
    # TODO(schema-fidelity): call your translator on `schema`, e.g.
    #   return {"schema": my_package.to_tool_schema(schema), "dialect": "json-schema"}
    # and delete these lines: while this marker is in translate(), the adapter is unavailable.
    raise NotImplementedError(f"fill in translate() in {ADAPTER}")


# Optional: the public call your users make to send a tool (the table's `entry.call`), with its
# transport stubbed so that nothing reaches the network, returning the projection read from the
# request it built (`entry.reads`), as translate() does. Once set, the handshake lists it under
# `entries` and the harness may ask for it with `"via": "entry"`, holding both answers equal.
entry = None


def unfinished():
    """Why the adapter cannot answer yet, or None: translate() still holds the marker."""
    try:
        source = inspect.getsource(translate)
    except (OSError, TypeError):
        return None
    if MARKER in source:
        return f"fill in translate() in {ADAPTER}: it still holds the {MARKER} marker"
    return None


def answer(request):
    """The answer to one translate request."""
    request_id = request["id"]
    try:
        if request.get("translator") != NAME:
            raise LookupError(f"{ADAPTER} serves the translator `{NAME}`, not `{request.get('translator')}`")
        via_entry = request.get("via") == "entry"
        if via_entry and entry is None:
            raise LookupError(f"{ADAPTER} drives no public entry (`entry` is not set)")
        projection = (entry if via_entry else translate)(request["schema"])
        # Encoded here, so that a projection that is not JSON (NaN, a set) is reported as this
        # schema's error rather than breaking the stream.
        return json.dumps({"id": request_id, "projection": projection}, allow_nan=False, separators=(",", ":"))
    except Refusal as refusal:
        return json.dumps({"id": request_id, "refusal": refusal.cites()}, separators=(",", ":"))
    except Exception as error:  # noqa: BLE001 -- every failure is reported against its schema
        traceback.print_exc(file=sys.stderr)
        return json.dumps({"id": request_id, "error": {"message": f"{type(error).__name__}: {error}"}}, separators=(",", ":"))


def serve():
    """Answer the harness until stdin ends."""
    protocol_out = sys.stdout
    sys.stdout = sys.stderr

    def send(line):
        protocol_out.write(line + "\n")
        protocol_out.flush()

    for raw in sys.stdin.buffer:
        if not raw.strip():
            continue
        request = json.loads(raw.decode("utf-8"))
        if "start" in request:
            reason = unfinished() or UNAVAILABLE
            if reason is not None:
                send(json.dumps({"unavailable": {"reason": reason}}))
                return
            started = {"protocol": PROTOCOL, "name": NAME, "version": VERSION, "translators": [NAME]}
            if entry is not None:
                started["entries"] = [NAME]
            send(json.dumps({"started": started}))
            continue
        send(answer(request))


if __name__ == "__main__":
    serve()
