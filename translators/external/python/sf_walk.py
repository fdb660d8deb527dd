"""Helpers shared by the Python adapters of issue 13: a pre-order walk of a source schema's
subschema nodes with their JSON pointers, used to attribute a package's refusal (whose message
names no location) to the first node that holds the keyword it is about."""

_SCHEMA_MAPS = ("$defs", "definitions", "properties", "patternProperties", "dependentSchemas")
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_SCHEMA_VALUES = (
    "additionalProperties", "items", "contains", "propertyNames", "if", "then", "else", "not",
    "unevaluatedItems", "unevaluatedProperties", "contentSchema", "additionalItems",
)


def _escape(key):
    return str(key).replace("~", "~0").replace("/", "~1")


def schema_nodes(schema, pointer=""):
    """Yield (node, pointer) for every object subschema, root first, in document order."""
    if not isinstance(schema, dict):
        return
    yield schema, pointer
    for key, value in schema.items():
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            for name, sub in value.items():
                yield from schema_nodes(sub, f"{pointer}/{_escape(key)}/{_escape(name)}")
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            for i, sub in enumerate(value):
                yield from schema_nodes(sub, f"{pointer}/{_escape(key)}/{i}")
        elif key in _SCHEMA_VALUES:
            if isinstance(value, list):  # draft-07 tuple `items`
                for i, sub in enumerate(value):
                    yield from schema_nodes(sub, f"{pointer}/{_escape(key)}/{i}")
            else:
                yield from schema_nodes(value, f"{pointer}/{_escape(key)}")


def first_node(schema, predicate):
    """The pointer of the first node for which predicate(node) holds, else None."""
    for node, pointer in schema_nodes(schema):
        if predicate(node):
            return pointer
    return None
