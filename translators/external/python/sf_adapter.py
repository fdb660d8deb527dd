"""The schema-fidelity adapter protocol, version 1, for Python adapters.

An adapter is a function per translator, `translate(schema) -> projection dict`, that raises
`Refusal` (or `LimitRefusal`) where the translator refuses by design; `serve()` does the rest. The messages are
specified in `protocol/request.schema.json` and `protocol/response.schema.json`.

While serving, `sys.stdout` points at stderr: a library that prints cannot corrupt the protocol
stream, and its output shows up in the harness's fault messages instead.
"""

import json
import sys
import traceback

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


def serve(name, version, translators, packages=None, unavailable=None):
    """Answer the harness until stdin ends.

    `translators` maps translator names (table stems) to functions from a source schema to a
    projection `{schema, dialect, codec?, strict?}`. `unavailable`, when set, is the reason the
    wrapped package cannot be used here (not installed): the handshake says so and the adapter exits.
    """
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
            send({"started": started})
            continue
        request_id = request["id"]
        try:
            projection = translators[request["translator"]](request["schema"])
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
