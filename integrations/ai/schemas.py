"""The shape of each kind of AI answer, as a small JSON Schema, and a strict validator for it.

The validator knows only what the schemas here and the store document's
(services/store/document.py) use: `type` (object, array, string, number, integer,
boolean, null, or a list of them), `enum`, `properties`, `required`,
`additionalProperties: false`, `minLength`/`maxLength`, `minItems`/`maxItems` and
`minimum`. `description` is a hint for the model and is not checked. The same dict goes
into the prompt, so the model reads the rules its answer is held to.
"""
from __future__ import annotations


def _text(low: int, high: int, description: str) -> dict:
    return {"type": "string", "minLength": low, "maxLength": high, "description": description}


def _record(properties: dict) -> dict:
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


STORE_COPY = _record({
    "headline": _text(3, 90, "the page's main heading, usually the product's name"),
    "subheadline": _text(0, 160, "one sentence under the heading saying what the product does"),
    "benefits": {"type": "array", "minItems": 3, "maxItems": 5, "description": "reasons to buy, each backed by the facts",
                 "items": _record({"title": _text(2, 60, "a short label"),
                                   "text": _text(10, 240, "one or two sentences")})},
    "faq": {"type": "array", "minItems": 3, "maxItems": 6, "description": "questions a shopper asks, answered from the facts",
            "items": _record({"question": _text(5, 140, "the question"),
                              "answer": _text(5, 400, "the answer")})},
    "about": _text(20, 900, "a paragraph about the shop and why it sells this product"),
    "shipping": _text(10, 500, "how orders are sent, without promising times or prices the facts do not give"),
    "returns": _text(10, 500, "how returns work, without promising periods the facts do not give"),
    "guarantee": _text(10, 300, "what the shop does when something is wrong with an order"),
    "seo_title": _text(10, 70, "the page title for search engines"),
    "seo_description": _text(50, 160, "the meta description for search engines"),
    "call_to_action": _text(2, 30, "the buy button's words"),
})

# A plain-language edit of a store: the whole copy as it should read afterwards, and the
# section the home page should lead with (null: unchanged).
STORE_EDIT = _record({
    "copy": STORE_COPY,
    "lead": {"type": ["string", "null"], "maxLength": 20,
             "description": "the section the home page leads with (hero, benefits, evidence, price, reviews, faq, "
                            "guarantee, shipping), or null to leave it"},
    "price": {"type": ["number", "null"],
              "description": "the price the store should charge when the founder asks for a new one, else null"},
})

STORE_EDIT["required"] = ["copy"]  # lead and price may be left out: unchanged

SCHEMAS = {"store_copy": STORE_COPY, "store_edit": STORE_EDIT}

# Enough errors to tell a model what to fix, few enough to keep the retry prompt short.
MAX_ERRORS = 10


def schema_for(kind: str) -> dict:
    """Returns the schema of a kind of task; an unknown kind is a programming error."""
    try:
        return SCHEMAS[kind]
    except KeyError:
        raise ValueError(f"no schema for AI task kind {kind!r}") from None


def validate(value, schema: dict) -> list[str]:
    """Returns what is wrong with the value against the schema, one line each ([] when valid)."""
    errors: list[str] = []
    _check(value, schema, "$", errors)
    return errors[:MAX_ERRORS]


_SCALARS = {
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def _check(value, schema: dict, path: str, errors: list[str]) -> None:
    kind = schema["type"]
    if isinstance(kind, list):  # one of several types (a nullable field, say)
        fitting = [k for k in kind if k in _SCALARS and _SCALARS[k](value)] or \
            [k for k in kind if k not in _SCALARS and _fits_container(k, value)]
        if not fitting:
            errors.append(f"{path}: must be one of {', '.join(kind)}")
            return
        kind = fitting[0]
        schema = {**schema, "type": kind}
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{path}: must be one of {', '.join(map(str, schema['enum']))}")
        return
    if kind in _SCALARS:
        if not _SCALARS[kind](value):
            errors.append(f"{path}: must be {'a' if kind != 'integer' else 'an'} {kind}")
        elif "minimum" in schema and value < schema["minimum"]:
            errors.append(f"{path}: must be at least {schema['minimum']}")
        return
    if kind == "string":
        if not isinstance(value, str):
            errors.append(f"{path}: must be a string")
        elif len(value) < schema.get("minLength", 0):
            errors.append(f"{path}: must be at least {schema['minLength']} characters (has {len(value)})")
        elif len(value) > schema.get("maxLength", len(value)):
            errors.append(f"{path}: must be at most {schema['maxLength']} characters (has {len(value)})")
    elif kind == "array":
        if not isinstance(value, list):
            errors.append(f"{path}: must be an array")
            return
        if len(value) < schema.get("minItems", 0):
            errors.append(f"{path}: must have at least {schema['minItems']} items (has {len(value)})")
        if len(value) > schema.get("maxItems", len(value)):
            errors.append(f"{path}: must have at most {schema['maxItems']} items (has {len(value)})")
        for index, item in enumerate(value):
            _check(item, schema["items"], f"{path}[{index}]", errors)
    elif kind == "object":
        if not isinstance(value, dict):
            errors.append(f"{path}: must be an object")
            return
        properties = schema["properties"]
        for key in schema.get("required", []):
            if key not in value:
                errors.append(f"{path}: missing key {key!r}")
        if schema.get("additionalProperties", True) is False:
            for key in value:
                if key not in properties:
                    errors.append(f"{path}: unexpected key {str(key)[:40]!r}")
        for key, sub in properties.items():
            if key in value:
                _check(value[key], sub, f"{path}.{key}", errors)
    else:
        raise ValueError(f"the validator does not know type {kind!r}")


def _fits_container(kind: str, value) -> bool:
    return {"string": str, "array": list, "object": dict}.get(kind) is not None and isinstance(
        value, {"string": str, "array": list, "object": dict}[kind])
