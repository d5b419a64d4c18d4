"""Email bodies from templates/email: a subject, a plain-text part and an HTML part.

Plain Jinja2, not Flask's: mail is rendered in workers, outside any request. The HTML
part is autoescaped (a product name is founder-written text); the text part and the
subject are not, since they are never read as HTML. The subject is folded to one line so
a value with a line break cannot add a header.
"""
from __future__ import annotations

from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined

TEMPLATES = Path(__file__).resolve().parents[2] / "templates" / "email"

_env = Environment(
    loader=FileSystemLoader(TEMPLATES),
    autoescape=lambda name: bool(name) and name.endswith(".html"),
    # A missing value is a bug in the caller, not an empty space in someone's mail.
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)


def render(template: str, **context) -> tuple[str, str, str]:
    """(subject, text, html) from templates/email/<template>.subject.txt / .txt / .html, rendered with Jinja2 (jinja2 is installed with Flask; do not import flask). HTML autoescaped, text not; subject stripped to one line."""
    subject = _env.get_template(f"{template}.subject.txt").render(**context)
    text = _env.get_template(f"{template}.txt").render(**context)
    html = _env.get_template(f"{template}.html").render(**context)
    return " ".join(subject.split()), text, html
