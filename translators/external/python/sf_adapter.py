"""The schema-fidelity adapter protocol, version 1, for Python adapters.

An adapter is a function per translator, `translate(schema) -> projection dict`, that raises
`Refusal` (or `LimitRefusal`) where the translator refuses by design; `serve()` does the rest. The messages are
specified in `protocol/request.schema.json` and `protocol/response.schema.json`.

While serving, `sys.stdout` points at stderr: a library that prints cannot corrupt the protocol
stream, and its output shows up in the harness's fault messages instead.
"""

import asyncio
import inspect
import json
import sys
import traceback
from importlib.metadata import version

PROTOCOL = 1


class Refusal(Exception):
    """The translator refuses the schema by design: the keyword it refuses and where it stands."""

    def __init__(self, keyword, pointer, message):
        super().__init__(message)
        self.keyword = keyword
        self.pointer = pointer
        self.message = message

    def cites(self):
        return {"keyword": self.keyword, "pointer": self.pointer, "message": self.message}


class LimitRefusal(Refusal):
    """The translator refuses because the schema exceeds a limit: its name (a `limits:` entry of
    the table's target or a `bounds:` entry of the table), the translator's count, the limit's value."""

    def __init__(self, limit, measured, value, message):
        super().__init__("", "", message)
        self.limit = limit
        self.measured = measured
        self.value = value

    def cites(self):
        return {"limit": self.limit, "measured": self.measured, "value": self.value, "message": self.message}


class NoRequest(Exception):
    """The public call returned without sending a request: there is nothing on the wire to read."""


class Wire:
    """The requests an SDK builds, captured at its transport: nothing reaches the network.

    Hand the SDK a client built on `transport(httpx)` (an `httpx.MockTransport`; pass the module
    the SDK uses: `httpx`, or `httpx2` for the anthropic SDK), then `send(call)` runs `call` (a
    function, or an async one) and returns the JSON body of the first request it sent. The
    transport answers every request with HTTP 400 and a JSON error, which SDKs do not retry: the
    call then raises, and that is expected. An exception raised before any request went out is the
    SDK's own answer about the schema (a refusal or a crash) and propagates unchanged.
    """

    STATUS = 400
    ERROR = {"error": {"type": "invalid_request_error", "code": 400, "status": "INVALID_ARGUMENT",
                       "message": "schema-fidelity stub transport: the request is recorded, never sent"}}

    def __init__(self):
        self.bodies = []

    def handle(self, request):
        self.bodies.append(json.loads(request.content or b"null"))
        return _response(request, self.STATUS, self.ERROR)

    def transport(self, httpx):
        """An `httpx.MockTransport` (sync and async) that records each request."""
        return httpx.MockTransport(self.handle)

    def send(self, call):
        """The JSON body of the first request `call` sends."""
        self.bodies = []
        try:
            result = call()
            if inspect.isawaitable(result):
                asyncio.run(_awaited(result))
        except Exception:  # noqa: BLE001 -- after a request went out, the stub's answer makes the call raise
            if not self.bodies:
                raise
        if not self.bodies:
            raise NoRequest("the public call sent no request")
        return self.bodies[0]


async def _awaited(awaitable):
    return await awaitable


def _response(request, status, body):
    """A response of the httpx module `request` comes from (httpx or httpx2)."""
    module = sys.modules[type(request).__module__.split(".")[0]]
    return module.Response(status, json=body, request=request)


class Wrapped:
    """The packages an adapter wraps, imported once as it starts: the preamble every adapter shares.

    Import them in a `with` block::

        with Wrapped("pydantic-ai-anthropic", "pydantic-ai-slim", "anthropic") as wrapped:
            import pydantic_ai
        ...
        wrapped.serve({"pydantic-ai-anthropic": translate}, entries={"pydantic-ai-anthropic": entry})

    `adapter` is the adapter's name; of the packages, the first is the one checked (its version is
    the adapter's) and the others are those whose versions the reports show beside it. An
    `ImportError` in the block (a missing package or module, or a named package without metadata)
    ends the adapter there: it answers the handshake `unavailable`, with the reason and `install`,
    and exits, so a run says what to install instead of failing every case, and no code below the
    block ever runs without the names the block imports.
    """

    def __init__(self, adapter, *packages, install="install translators/external/python/requirements.txt"):
        self.adapter = adapter
        self.named = packages
        self.install = install
        self.packages = None

    def __enter__(self):
        return self

    def __exit__(self, _kind, error, _traceback):
        if error is None:
            try:
                self.packages = {name: version(name) for name in self.named}
            except ImportError as missing:  # importlib.metadata.PackageNotFoundError is one
                error = missing
        if not isinstance(error, ImportError):
            return False
        serve(self.adapter, "not installed", {}, unavailable=f"cannot import {self.named[0]} ({error}): {self.install}")
        sys.exit(0)

    def serve(self, translators, entries=None):
        """`serve` with this adapter's name, version and packages."""
        serve(self.adapter, self.packages[self.named[0]], translators, packages=self.packages, entries=entries)


def serve(name, version, translators, packages=None, unavailable=None, entries=None):
    """Answer the harness until stdin ends.

    `translators` maps translator names (table stems) to functions from a source schema to a
    projection `{schema, dialect, codec?, strict?}`: the code path the table's `entry.path` names.
    `entries` maps the same names to functions that make the table's `entry.call` (the public call
    users make, its transport stubbed with a `Wire`) and read the projection out of the request it
    built; the harness asks for them with `via: entry` and holds both answers equal. `unavailable`,
    when set, is the reason the wrapped package cannot be used here (not installed): the handshake
    says so and the adapter exits.
    """
    entries = entries or {}
    protocol_out = sys.stdout
    sys.stdout = sys.stderr

    def send(message):
        protocol_out.write(json.dumps(message, allow_nan=False, separators=(",", ":")) + "\n")
        protocol_out.flush()

    for line in sys.stdin:
        request = json.loads(line)
        if "start" in request:
            if unavailable is not None:
                send({"unavailable": {"reason": unavailable}})
                return
            started = {"protocol": PROTOCOL, "name": name, "version": version, "translators": sorted(translators)}
            if packages:
                started["packages"] = packages
            if entries:
                started["entries"] = sorted(entries)
            send({"started": started})
            continue
        request_id = request["id"]
        try:
            via = entries if request.get("via") == "entry" else translators
            projection = via[request["translator"]](request["schema"])
            answer = {"id": request_id, "projection": projection}
            # Encode here so that a projection that is not JSON (NaN, a set) is reported for this case.
            send(answer)
            continue
        except Refusal as refusal:
            answer = {"id": request_id, "refusal": refusal.cites()}
        except Exception as error:  # noqa: BLE001 -- every failure is reported against its case
            traceback.print_exc(file=sys.stderr)
            answer = {"id": request_id, "error": {"message": f"{type(error).__name__}: {error}"}}
        send(answer)
