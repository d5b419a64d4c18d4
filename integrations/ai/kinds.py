"""The registry of kinds of writing: a feature registers its Kind (schema, the prompt's
task, its offline writer, and what the seam does with an answer) where it asks for it, and
the seam and every backend read it from here. store_copy is the seam's own (registered in
integrations/ai/__init__.py); store_edit is the store editor's (services/store/edits.py)."""
from __future__ import annotations

from integrations.ai.task import Kind

_KINDS: dict[str, Kind] = {}


def register(kind: Kind) -> Kind:
    """Registers a kind (again: the same name replaces it, so a module reloaded in tests is harmless)."""
    _KINDS[kind.name] = kind
    return kind


def kind_of(name: str) -> Kind:
    """The registered kind; an unknown one is a programming error."""
    try:
        return _KINDS[name]
    except KeyError:
        raise ValueError(f"no AI task kind {name!r} is registered") from None


def as_written(copy: dict, task) -> tuple[dict, list[dict]]:
    """A Kind.finish that keeps the answer whole: for the founder's own words (a store edit),
    which the caller checks itself and refuses by sentence rather than filtering."""
    return copy, []
