"""The browser app: `GET /` serves the shell, which loads the app's own JavaScript modules
and stylesheet from /static/app/ (served as they are in the repository: no build step).

The app is hash-routed (`/#/app/home`, `/#login`, `/#login?e=invalid_link`), so this one
route serves every screen, including the sign-in link's landing `/?view=home#/app/home`.
Its content security policy allows script, style, fetches and fonts from this origin only
(no inline script or style, no framing); images may also come from https hosts, because
catalog records may name remote photos.
"""
from __future__ import annotations

from flask import make_response, render_template

from api.routing import Blueprint
from config import get_settings

bp = Blueprint("webapp", __name__, description="The browser app.")

APP_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; "
           "connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; "
           "frame-ancestors 'none'")

DECISIONS: list[str] = [
    "GET / serves the browser app (an HTML shell whose scripts and styles are files of this origin under "
    "/static/app/, served as they are in the repository). Screens are hash routes: #/app/home, #/app/find, "
    "#/app/offer, #/app/dashboard, #/app/store, #/app/product, #/app/launch, #/app/research, #/app/insights, "
    "#/app/learn, #/app/meter, #/app/account, and #login (#login?e=invalid_link tells that a sign-in link was "
    "expired, spent or unknown). "
    "The app branches on `reason` and shows the server's `explanation` for codes it does not know (spec 9.4). "
    f"The shell answers with Content-Security-Policy `{APP_CSP}` and Cache-Control `private, no-cache` (it may "
    "set the session cookie, so no shared cache keeps it).",
]


@bp.get("/")
@bp.declare(changes_state=False)
@bp.response(200, {"type": "string", "description": "The browser app's HTML shell"}, content_type="text/html")
def shell():
    """Serves the browser app: the founder's journey, from the feed to the launch facts, in one page."""
    response = make_response(render_template("app/index.html", build=get_settings().build))
    response.headers["Content-Type"] = "text/html; charset=utf-8"
    response.headers["Content-Security-Policy"] = APP_CSP
    # Revalidated on every load (a new build's scripts show at once), and private: the first
    # load sets the session cookie, which no shared cache may keep.
    response.headers["Cache-Control"] = "private, no-cache"
    response.headers["X-Frame-Options"] = "DENY"
    return response
