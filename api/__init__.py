"""The Flask app factory. `flask --app api ...` and gunicorn (`api:create_app()`) use it."""
from __future__ import annotations

from pathlib import Path

from flask import Flask

from config import Settings, configure_logging, settings_or_exit, use_settings

ROOT = Path(__file__).resolve().parent.parent

# One blueprint module per feature area (each has `bp`, and may have `DECISIONS`).
BLUEPRINTS = ["health", "reference", "accounts", "usage", "billing", "discovery", "metrics", "research", "ask",
              "brief", "workspace", "learning", "model3d", "webapp",
              "store", "storefront", "intents", "editor", "launch", "product", "funnel", "pay", "pay_sandbox",
              "commerce", "suppliers", "domains", "samples", "settings", "todos", "ads", "ad_money", "organic",
              "helpdesk", "support", "fix", "walkthrough", "journey", "pages", "hosts", "admin"]


def create_app(settings: Settings | None = None) -> Flask:
    """Builds the app with the given settings (tests) or those of the environment."""
    settings = use_settings(settings) if settings is not None else settings_or_exit()
    configure_logging(settings)

    from services.database import init_db

    # The server's own limit on a statement: the web's bound, or the jobs' when they run in
    # this process too (make run).
    init_db(settings.database_url, pool_size=settings.db_pool_size, pool_timeout=settings.db_pool_timeout,
            statement_timeout=settings.worker_db_wait_seconds if settings.worker_in_process else settings.db_wait_seconds)
    # Likewise one Redis call's bound (the broker's client is made on `import jobs`).
    from services.redis_waits import bound_redis_waits

    bound_redis_waits(settings.worker_redis_wait_seconds if settings.worker_in_process else settings.redis_wait_seconds)
    import jobs  # noqa: F401  (sets the broker and declares the actors before any route sends)
    from api.json_out import JSONProvider

    app = Flask(__name__, static_folder="static", static_url_path="/static", template_folder=str(ROOT / "templates"))
    app.json = JSONProvider(app)  # orjson for plain answers (api/json_out.py)
    app.config.update(SECRET_KEY=settings.secret_key, MAX_CONTENT_LENGTH=settings.max_body_bytes, JSON_SORT_KEYS=False)
    app.json.sort_keys = False
    # /api/x and /api/x/ are one route; no redirects (a redirect is an HTML-bodied 308).
    app.url_map.strict_slashes = False
    # Nor does the router redirect anything else: werkzeug would answer /api//health with an
    # HTML 308 to http://<the request's Host>/api/health (and before the cross-site guard
    # could see a route). A path with an empty segment matches no route, so it is a JSON 404
    # like any unknown path; any redirect the router still asks for is answered by
    # api/http.py in JSON with a relative Location.
    app.url_map.merge_slashes = False
    app.url_map.redirect_defaults = False

    # The browser app's files and shell go out compressed (brotli or gzip, as the browser
    # accepts); JSON answers are small and go out as they are.
    app.config.update(COMPRESS_MIMETYPES=["text/html", "text/css", "text/javascript", "application/javascript",
                                          "image/svg+xml"], COMPRESS_ALGORITHM=["br", "gzip"],
                      COMPRESS_ALGORITHM_STREAMING=["br", "gzip"], COMPRESS_MIN_SIZE=1024,
                      COMPRESS_REGISTER=False)
    # A published store page is compressed once per process and ETag (api/storefront.py).
    from api.storefront import CompressedPages, compressed_page_key

    app.config.update(COMPRESS_CACHE_BACKEND=CompressedPages, COMPRESS_CACHE_KEY=compressed_page_key)
    from flask_compress import Compress

    compress = Compress(app)

    # Registered here, in Compress's own place among the hooks, but asked only about the types
    # it compresses: for any other answer (every JSON answer) its hook changed nothing but to
    # add `Vary: Accept-Encoding`, which such a body does not vary by, and it cost as much as a
    # tenth of a JSON answer's hooks.
    @app.after_request
    def compress_listed_types(response):
        if response.mimetype in compress.compress_mimetypes_set:
            return compress.after_request(response)
        return response

    from api.errors import install_error_handlers
    from api.http import install_request_conventions

    install_error_handlers(app)
    install_request_conventions(app, settings)

    import importlib

    from api.openapi import DECISIONS, build_document, make_api

    api = make_api(app, settings)
    modules = [importlib.import_module(f"api.{name}") for name in BLUEPRINTS]
    for module in modules:
        api.register_blueprint(module.bp)
    # Flask's static files change nothing, whoever asks for them (the guard fails closed otherwise).
    from api.routing import Declaration

    app.view_functions["static"].declaration = Declaration(changes_state=False, session=False)
    # Each area records its decisions on the spec's open points beside its routes.
    decisions = DECISIONS + [d for module in modules for d in getattr(module, "DECISIONS", [])]

    cached = {}

    def openapi_document():
        if "doc" not in cached:
            cached["doc"] = build_document(app, api, decisions)
        return cached["doc"]

    app.extensions["openapi"] = openapi_document

    from api.cli import brief_cli, catalog_cli, db_cli

    app.cli.add_command(db_cli)
    app.cli.add_command(catalog_cli)
    app.cli.add_command(brief_cli)
    return app
