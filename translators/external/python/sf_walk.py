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


# The proto `Schema` fields whose proto name differs from their JSON name. google-genai serializes
# some of them under the proto name (`any_of`); proto3's JSON parser accepts both spellings as the
# same field, so the API reads `any_of` as `anyOf`.
_PROTO_JSON_NAMES = {
    "any_of": "anyOf", "max_items": "maxItems", "min_items": "minItems", "max_length": "maxLength",
    "min_length": "minLength", "max_properties": "maxProperties", "min_properties": "minProperties",
    "property_ordering": "propertyOrdering", "additional_properties": "additionalProperties",
}


def proto_json_names(schema):
    """A proto `Schema` as JSON with every field under its JSON name, as the API reads it."""
    if isinstance(schema, list):
        return [proto_json_names(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        name = _PROTO_JSON_NAMES.get(key, key)
        if key == "properties" and isinstance(value, dict):
            out[name] = {prop: proto_json_names(sub) for prop, sub in value.items()}
        elif key in ("items", "any_of", "anyOf", "additional_properties", "additionalProperties"):
            out[name] = proto_json_names(value)
        else:
            out[name] = value
    return out
