"""meldcam's web app: a Flask app factory with a JSON API and phone-friendly pages.

Configuration, later wins: the defaults (every setting, with its default and what it does, is
in ``webapp.settings``), ``<instance>/config.py``, ``MELDCAM_*`` environment variables
(``MELDCAM_DATABASE_URL``, ``MELDCAM_MAX_CONTENT_LENGTH``...), then the ``config`` dict given
to ``create_app``. The instance folder is ``MELDCAM_INSTANCE_PATH`` or ``INSTANCE_PATH`` in
``config``, else Flask's default (``instance/`` beside the package, git-ignored). It holds the
SQLite database (WAL) and the secret key, generated there on first start. Any other database
(PostgreSQL, several nodes) needs ``MELDCAM_SECRET_KEY``, the same on every node: edit sessions
and CSRF tokens made by one node must hold on the others (``ConfigurationError`` otherwise; see
docs/deploy.md). The schema is brought up to date at start (``webapp.schema``).

Hostile input gets a 4xx, never a 500: bodies are bounded before they are parsed
(``webapp.bounds``), writes take an ``Idempotency-Key`` (``webapp.idempotency``), clients are
rate-limited (``webapp.throttle``: ``RATELIMIT_*``), photos are read in turn
(``RECOGNISE_*`` in ``webapp.photos``) and those of no game deleted after
``UNATTACHED_PHOTO_HOURS``. Links name the server's own address, never a ``Host`` a request
made up (``webapp.hosts``: ``PUBLIC_URL``, ``ALLOWED_HOSTS``, set by ``meldcam serve``), and
the tokens kept in the session cookie are sealed (``webapp.sealing``). ``HTTPS = True``
(``meldcam serve --https``) marks the session cookie ``Secure``; so does any request that
arrived over HTTPS (directly, or through a proxy that ``meldcam serve --proxy`` trusts).
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

from flask import Flask, Response, jsonify, render_template, request
from flask.sessions import SecureCookieSessionInterface
from sqlalchemy.exc import IntegrityError
from werkzeug.exceptions import BadRequest, Conflict, HTTPException

from webapp.bounds import clip, refuse_oversized
from webapp.i18n import error_json, init_i18n, lazy_gettext, localise
from webapp.settings import MEGABYTE, apply_defaults

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; img-src 'self' blob: data:; script-src 'self'; style-src 'self'; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)


class ConfigurationError(RuntimeError):
    """The app cannot start as configured (``meldcam serve`` prints it and exits 2)."""


def _secret_key(instance: Path) -> str:
    """Read the instance's secret key, creating it (mode 600) on first start."""
    path = instance / "secret_key"
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip()
    with os.fdopen(descriptor, "w") as handle:
        key = secrets.token_hex(32)
        handle.write(key + "\n")
    return key


class SessionInterface(SecureCookieSessionInterface):
    """The session cookie is ``Secure`` when the app is set to HTTPS or the request came over
    HTTPS: a browser never sends it back over plain HTTP, where it could be read."""

    def get_cookie_secure(self, app: Flask) -> bool:
        return bool(app.config["SESSION_COOKIE_SECURE"]) or (bool(request) and request.is_secure)


def configured_app(config: dict[str, Any] | None = None) -> Flask:
    """A bare Flask app with meldcam's configuration loaded (defaults, instance ``config.py``,
    ``MELDCAM_*``, then ``config``), its instance folder made; no database, no key, no routes."""
    config = dict(config or {})
    instance_path = config.pop("INSTANCE_PATH", None) or os.environ.get("MELDCAM_INSTANCE_PATH")
    app = Flask(
        __name__,
        instance_relative_config=True,
        instance_path=str(Path(instance_path).resolve()) if instance_path else None,
    )
    instance = Path(app.instance_path)
    instance.mkdir(parents=True, exist_ok=True)
    apply_defaults(app.config, instance)  # every setting and its default: webapp.settings
    app.config.from_pyfile("config.py", silent=True)
    app.config.from_prefixed_env("MELDCAM")
    app.config.update(config)
    return app


def create_app(config: dict[str, Any] | None = None) -> Flask:
    app = configured_app(config)
    if not app.config["SECRET_KEY"]:
        if not str(app.config["DATABASE_URL"]).startswith("sqlite"):
            raise ConfigurationError(
                "set MELDCAM_SECRET_KEY (the same long random value on every node, e.g. from "
                "`python -c 'import secrets; print(secrets.token_hex(32))'`): with a shared "
                "database each node's own key would end edit sessions on every other node"
            )
        app.config["SECRET_KEY"] = _secret_key(Path(app.instance_path))
    if app.config["HTTPS"]:
        app.config["SESSION_COOKIE_SECURE"] = True
        app.config["PREFERRED_URL_SCHEME"] = "https"
    app.session_interface = SessionInterface()
    app.before_request(refuse_oversized)  # first: before any limit counts the request

    from webapp import api, clubs, live, pages, photos
    from webapp.db import init_db
    from webapp.events import init_events
    from webapp.hosts import init_hosts
    from webapp.throttle import init_throttle

    # app.json is Flask's DefaultJSONProvider, typed as the JSONProvider base without sort_keys
    app.json.sort_keys = False  # type: ignore[attr-defined]
    init_i18n(app)
    init_db(app)
    photos.init_photos(app)
    app.register_blueprint(pages.bp)
    app.register_blueprint(api.bp, url_prefix="/api")
    app.register_blueprint(live.bp)
    app.register_blueprint(clubs.bp)
    init_events(app)
    init_throttle(app)
    init_hosts(app)

    @app.after_request
    def security_headers(response: Response) -> Response:
        response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        response.headers.setdefault("X-Frame-Options", "DENY")
        return response

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> tuple[Any, int]:
        code = error.code or 500
        message = error_message(error)
        if request.path.startswith("/api/"):
            return jsonify(error_json(message, clip)), code
        return render_template("error.html", message=clip(localise(message)), code=code), code

    @app.errorhandler(RecursionError)
    def too_deep(error: RecursionError) -> tuple[Any, int]:
        return http_error(BadRequest(lazy_gettext("the request is nested too deeply to be read")))

    @app.errorhandler(Exception)
    def unexpected(error: Exception) -> tuple[Any, int]:
        if isinstance(error, HTTPException):
            return http_error(error)
        app.logger.exception("unexpected error on %s", request.path)
        message = lazy_gettext("something went wrong on the server; what you entered was not saved")
        if request.path.startswith("/api/"):
            return jsonify(error_json(message, clip)), 500
        return render_template("error.html", message=localise(message), code=500), 500

    @app.errorhandler(IntegrityError)
    def write_conflict(error: IntegrityError) -> tuple[Any, int]:
        return http_error(
            Conflict(lazy_gettext("someone else changed this game just now: reload and try again"))
        )

    return app


def error_message(error: HTTPException) -> Any:
    """A message for players, not Werkzeug's default wording (a lazy gettext string: English
    for the API's ``error``, the asked language for pages and ``error_text``)."""
    if error.code == 413:
        limit = request.max_content_length or 0
        return lazy_gettext(
            "the upload is too large: at most %(megabytes)s MB (photos are shrunk first)",
            megabytes=limit // MEGABYTE,
        )
    if error.code == 404:
        return lazy_gettext("nothing here: check the address")
    if error.code == 405:
        return lazy_gettext("this address does not take that kind of request")
    if error.code == 429:
        return lazy_gettext("too many requests from this device: wait a little, then try again")
    return error.description or error.name
