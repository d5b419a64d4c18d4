"""A response schema's dump, compiled once: what `schema.dump(body)` answers for the body a
service built (dicts, lists, strings, numbers), without marshmallow's per-field machinery
(for each field of each nested object: an accessor, a getter, a default check, a formatter;
a third of a dashboard's time).

`dumper(schema)` returns a function equal to `schema.dump` for that schema instance: the
same fields in the same order (data_key, attribute, only/exclude as the instance has
them), a field whose key the object lacks left out, None kept as None, and each value
formatted by its field as marshmallow would, except that a value already of the field's
output type (a str for String, a float for Float, an int for Integer, a bool for Boolean)
is taken as it is (what the field's own formatter would return for it, equal and of the
same type). A schema using anything else (hooks, dump defaults, other field types, dotted
attributes, a field named like a dict method) is not compiled: its dumper is `schema.dump`
itself. An object that is not a plain dict is dumped by marshmallow too. tests/test_dumping.py
compares the two on every kind of value, and on the answers of the routes that use it.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from marshmallow import Schema, fields, missing

# Field classes (exactly these, not subclasses) whose dump of a value of the given type is
# that same value: the value's formatter is skipped for it, and run for anything else.
_AS_IS = {fields.String: str, fields.Float: float, fields.Integer: int, fields.Boolean: bool}


class _NotCompiled(Exception):
    pass


def dumper(schema: Schema) -> Callable[[Any], Any]:
    """`schema.dump`, compiled when the schema allows (see the module docstring)."""
    try:
        one = _object_dumper(schema)
    except _NotCompiled:
        return schema.dump
    if schema.many:
        return lambda objects: schema.dump(objects) if objects is None else [one(o) for o in objects]
    return one


def _object_dumper(schema: Schema, depth: int = 0) -> Callable[[Any], Any]:
    cls = type(schema)
    if depth > 16:
        raise _NotCompiled  # a schema nesting itself: left to marshmallow
    if any(schema._hooks.get(tag) for tag in ("pre_dump", "post_dump")) or schema.dict_class is not dict \
            or cls.get_attribute is not Schema.get_attribute or cls._serialize is not Schema._serialize \
            or cls.dump is not Schema.dump:
        raise _NotCompiled
    plan = []
    for name, field in schema.dump_fields.items():
        attribute = field.attribute or name
        if "." in attribute or hasattr(dict, attribute) or field.dump_default is not missing:
            raise _NotCompiled  # marshmallow would read a path, or a dict's method, or a default
        plan.append((field.data_key if field.data_key is not None else name, attribute, _value(field, attribute, depth)))

    def dump(obj):
        if type(obj) is not dict:
            return schema.dump(obj, many=False)
        out = {}
        for key, attribute, value in plan:
            found = obj.get(attribute, missing)
            if found is not missing:
                out[key] = None if found is None else value(found, obj)
        return out

    return dump


def _value(field, attribute: str, depth: int) -> Callable[[Any, Any], Any]:
    """How one field formats a value that is not None."""
    kind = type(field)
    if kind in _AS_IS:
        if getattr(field, "as_string", False):
            raise _NotCompiled
        exact, serialize = _AS_IS[kind], field._serialize
        return lambda v, obj: v if type(v) is exact else serialize(v, attribute, obj)
    if kind is fields.Raw:
        return lambda v, obj: v
    if kind is fields.Dict and field.key_field is None and field.value_field is None:
        return lambda v, obj: dict(v)
    if kind is fields.Nested:
        nested = field.schema  # the nested schema as the field resolves it (only, exclude, many)
        many = nested.many or field.many
        one = _object_dumper(nested, depth + 1)
        if many:
            return lambda v, obj: [one(each) for each in v]
        return lambda v, obj: one(v)
    if kind is fields.List:
        inner = _value(field.inner, attribute, depth)
        return lambda v, obj: [None if each is None else inner(each, obj) for each in v]
    raise _NotCompiled
