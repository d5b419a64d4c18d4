"""The shape of a store page's copy as a JSON Schema, and the one validator for every
schema of the service (AI answers of each kind, and the store document:
services/store/document.py).

Validation is the `jsonschema` library's Draft 2020-12 validator, with one strictness of
ours kept: an integer is an integer, not 1.0. Each problem reads as "<where>: <what is
wrong>" (`$.benefits[1].text: must be at least 10 characters (has 5)`): the line a model is
shown on its second try, and the explanation a founder or client reads. A Problem keeps
its `path` and its `words` apart too, so a refusal can be worded for a founder later
without parsing the line. `description` is a hint for the model and is not checked. The
same dict goes into the prompt, so the model reads the rules its answer is held to.
"""
from __future__ import annotations

from jsonschema import Draft202012Validator, validators


def _text(low: int, high: int, description: str) -> dict:
    return {"type": "string", "minLength": low, "maxLength": high, "description": description}


def record(properties: dict, *, optional: tuple = ()) -> dict:
    """An object schema with exactly these keys, each required unless named optional."""
    return {"type": "object", "properties": properties,
            "required": [k for k in properties if k not in optional], "additionalProperties": False}


STORE_COPY = record({
    "headline": _text(3, 90, "the page's main heading, usually the product's name"),
    "subheadline": _text(0, 160, "one sentence under the heading saying what the product does"),
    "benefits": {"type": "array", "minItems": 3, "maxItems": 5, "description": "reasons to buy, each backed by the facts",
                 "items": record({"title": _text(2, 60, "a short label"),
                                  "text": _text(10, 240, "one or two sentences")})},
    "faq": {"type": "array", "minItems": 3, "maxItems": 6, "description": "questions a shopper asks, answered from the facts",
            "items": record({"question": _text(5, 140, "the question"),
                             "answer": _text(5, 400, "the answer")})},
    "about": _text(20, 900, "a paragraph about the shop and why it sells this product"),
    "shipping": _text(10, 500, "how orders are sent, without promising times or prices the facts do not give"),
    "returns": _text(10, 500, "how returns work, without promising periods the facts do not give"),
    "guarantee": _text(10, 300, "what the shop does when something is wrong with an order"),
    "seo_title": _text(10, 70, "the page title for search engines"),
    "seo_description": _text(50, 160, "the meta description for search engines"),
    "call_to_action": _text(2, 30, "the buy button's words"),
})

# Enough problems to tell a model what to fix, few enough to keep the retry prompt short.
MAX_ERRORS = 10

# Draft 2020-12 counts 1.0 as an integer; a stored document's `format` and the like stay whole numbers.
_Validator = validators.extend(Draft202012Validator, type_checker=Draft202012Validator.TYPE_CHECKER.redefine(
    "integer", lambda _checker, value: isinstance(value, int) and not isinstance(value, bool)))
_cache: dict[int, tuple[dict, Draft202012Validator]] = {}


class Problem(str):
    """One thing wrong with a value: reads as "<path>: <words>", with each kept apart."""

    path: str
    words: str

    def __new__(cls, path: str, words: str):
        problem = super().__new__(cls, f"{path}: {words}")
        problem.path, problem.words = path, words
        return problem


def schema_for(kind: str) -> dict:
    """The schema of a registered kind of task; an unknown kind is a programming error."""
    from integrations.ai.kinds import kind_of

    return kind_of(kind).schema


def validate(value, schema: dict) -> list[Problem]:
    """What is wrong with the value against the schema, one Problem each ([] when valid)."""
    problems: list[Problem] = []
    for error in _validator(schema).iter_errors(value):
        for problem in _described(error):
            if problem not in problems:
                problems.append(problem)
    return problems[:MAX_ERRORS]


def _validator(schema: dict):
    cached = _cache.get(id(schema))
    if cached is None or cached[0] is not schema:
        _Validator.check_schema(schema)
        cached = _cache[id(schema)] = (schema, _Validator(schema))
    return cached[1]


def _described(error) -> list[Problem]:
    """The library's error as the problems a reader is told (one per missing or unexpected key)."""
    path, keyword, rule, value = error.json_path, error.validator, error.validator_value, error.instance
    if keyword == "required":
        return [Problem(path, f"missing key {key!r}") for key in rule if key not in value]
    if keyword == "additionalProperties":
        known = error.schema.get("properties", {})
        return [Problem(path, f"unexpected key {str(key)[:40]!r}") for key in value if key not in known]
    if keyword == "type":
        kinds = rule if isinstance(rule, list) else [rule]
        words = (f"must be one of {', '.join(kinds)}" if len(kinds) > 1
                 else f"must be {'an' if rule in ('integer', 'object', 'array') else 'a'} {rule}")
        return [Problem(path, words)]
    words = {
        "enum": lambda: f"must be one of {', '.join(map(str, rule))}",
        "const": lambda: f"must be {rule!r}",
        "minLength": lambda: f"must be at least {rule} characters (has {len(value)})",
        "maxLength": lambda: f"must be at most {rule} characters (has {len(value)})",
        "minItems": lambda: f"must have at least {rule} items (has {len(value)})",
        "maxItems": lambda: f"must have at most {rule} items (has {len(value)})",
        "minimum": lambda: f"must be at least {rule}",
        "maximum": lambda: f"must be at most {rule}",
    }.get(keyword)
    return [Problem(path, words() if words else error.message[:200])]
