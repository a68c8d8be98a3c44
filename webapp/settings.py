"""Every setting the web app reads, with its default, its type and what it does: the one place.

``apply_defaults`` puts the defaults into a new app's config first (``webapp.configured_app``);
then, later wins, ``<instance>/config.py``, ``MELDCAM_*`` environment variables
(``MELDCAM_RECOGNISE_QUEUE=8``: the value is read as JSON, else taken as text) and the
``config`` dict given to ``create_app`` (``meldcam serve`` gives its options there). The
modules read ``app.config[NAME]``, never a default of their own. The instance folder itself is
``MELDCAM_INSTANCE_PATH`` or ``INSTANCE_PATH`` in that dict (read before the config is made,
so not a setting here). docs/deploy.md lists them all (``markdown_table``; a test keeps the two
the same: after changing one here, paste the table the test prints).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from webapp.i18n import DEFAULT_LANGUAGE, LANGUAGES, TRANSLATIONS

MEGABYTE = 1024 * 1024
# a page form's text fields (not its files; a hand is a few KB). Werkzeug also holds each 64 KB
# chunk of a multipart body against this limit, files included: it must stay well above that.
FORM_FIELDS_BYTES = 256 * 1024


@dataclass(frozen=True)
class Setting:
    """One setting: ``default`` is its value, or a function of the instance folder giving it
    (then ``shown`` is how the docs write it)."""

    name: str
    default: Any
    type: str
    doc: str
    shown: str | None = None

    def value(self, instance: Path) -> Any:
        if callable(self.default):
            return self.default(instance)
        return copy.copy(self.default)  # a dict default is the app's own to change

    def shown_default(self) -> str:
        """The default as the docs' table writes it."""
        if self.shown is not None:
            return self.shown
        if isinstance(self.default, str):
            return repr(self.default).replace("'", '"')
        return repr(self.default)


def _database(instance: Path) -> str:
    return f"sqlite:///{instance / 'meldcam.sqlite3'}"


def _translations(_instance: Path) -> str:
    return str(TRANSLATIONS)


SETTINGS: tuple[Setting, ...] = (
    # -- the app ---------------------------------------------------------------------------
    Setting(
        "DATABASE_URL",
        _database,
        "str",
        "SQLAlchemy URL of the games' database (PostgreSQL for several nodes)",
        shown="sqlite:///<instance>/meldcam.sqlite3",
    ),
    Setting(
        "SECRET_KEY",
        None,
        "str or None",
        "signs sessions and CSRF tokens; None: made in the instance folder (SQLite only)",
    ),
    Setting("HTTPS", False, "bool", "served over HTTPS: Secure cookie, https links (--https)"),
    Setting(
        "SESSION_COOKIE_SECURE",
        False,
        "bool",
        "session cookie sent over HTTPS only (set by HTTPS; also per HTTPS request)",
    ),
    Setting("SESSION_COOKIE_SAMESITE", "Lax", "str", "the session cookie's SameSite"),
    Setting("SESSION_COOKIE_HTTPONLY", True, "bool", "scripts cannot read the session cookie"),
    Setting(
        "MAX_CONTENT_LENGTH",
        16 * MEGABYTE,
        "int",
        "bytes of one request's body, 16 MB (413 past it); waitress takes at most 4x",
    ),
    Setting(
        "MAX_FORM_MEMORY_SIZE",
        FORM_FIELDS_BYTES,
        "int",
        "bytes of a form's text fields, 256 KB (and of each chunk of a multipart body)",
    ),
    Setting(
        "HINT_BUDGET_S",
        0.5,
        "float",
        "seconds of search for POST /api/hint; past it the best move so far, exact: false",
    ),
    Setting(
        "RECOGNISER_FACTORY",
        None,
        "callable or None",
        "kind -> recogniser, for tests and benchmarks; None: vision's own",
    ),
    # -- languages (webapp.i18n) -----------------------------------------------------------
    Setting(
        "LANGUAGES",
        LANGUAGES,
        "dict[str, str]",
        "languages offered, code -> name in itself",
        shown="en, pl, hr, ro",
    ),
    Setting("BABEL_DEFAULT_LOCALE", DEFAULT_LANGUAGE, "str", "language when none is asked"),
    Setting(
        "BABEL_TRANSLATION_DIRECTORIES",
        _translations,
        "str",
        "Flask-Babel's catalogs (server-side messages)",
        shown="webapp/translations",
    ),
    Setting(
        "I18N_DIRECTORY",
        _translations,
        "str",
        "catalogs of the page scripts' messages (the js domain)",
        shown="webapp/translations",
    ),
    # -- links name the server's own address (webapp.hosts) ----------------------------------
    Setting(
        "PUBLIC_URL",
        None,
        "str or None",
        "the address players use; every request is taken as made to it (--public-url)",
    ),
    Setting(
        "ALLOWED_HOSTS",
        None,
        "list[str] or None",
        "host:port names the server answers as (set by meldcam serve)",
    ),
    Setting(
        "ALLOW_OWN_ADDRESSES",
        False,
        "bool",
        "also take any IP address of this machine (set by serve on all interfaces)",
    ),
    # -- rate limits per client (webapp.throttle, Flask-Limiter) ------------------------------
    Setting("RATELIMIT_ENABLED", True, "bool", "False turns every rate limit off"),
    Setting(
        "RATELIMIT_STORAGE_URI",
        "memory://",
        "str",
        "where counts live: per process, or e.g. redis://host:6379/1 shared by nodes",
    ),
    Setting("RATELIMIT_HEADERS_ENABLED", True, "bool", "answers carry X-RateLimit-* headers"),
    Setting(
        "RATELIMIT_SWALLOW_ERRORS",
        True,
        "bool",
        "a shared store that is down lets requests through (never a 500)",
    ),
    Setting("RATELIMIT_KEY_PREFIX", "", "str", "prefix of the counts' keys in the store"),
    Setting(
        "RATELIMIT_WRITES",
        "60 per minute;600 per hour",
        "str",
        "every write (POST, PUT, PATCH, DELETE) of a client, all routes together",
    ),
    Setting(
        "RATELIMIT_NEW_GAMES",
        "20 per minute;200 per day",
        "str",
        "new games and clubs of a client",
    ),
    Setting(
        "RATELIMIT_BAD_TOKENS",
        "20 per minute;100 per hour",
        "str",
        "answers 403 (wrong edit token or seat link); past it, 429",
    ),
    # -- photos (webapp.photos) ----------------------------------------------------------------
    Setting("RECOGNISE_WORKERS", 1, "int", "photos read at once in a process (or processes)"),
    Setting("RECOGNISE_QUEUE", 4, "int", "photos waiting for their turn; past it, 503"),
    Setting("RECOGNISE_WAIT_S", 60.0, "float", "seconds a photo may wait or be read; then 503"),
    Setting("RECOGNISE_RETRY_AFTER", 5, "int", "Retry-After seconds of a busy answer 503"),
    Setting(
        "UNATTACHED_PHOTO_HOURS",
        24,
        "float or None",
        "a photo no game holds is deleted after this; 0 or None keeps them",
    ),
    # -- recognition workers (webapp.workers) ---------------------------------------------------
    Setting(
        "REDIS_URL",
        None,
        "str or None",
        "Redis of the recognition queue: photos read by meldcam worker; None: in process",
    ),
    Setting("RECOGNISE_IN_FLIGHT", 16, "int", "photos one node may have at the workers at once"),
    Setting("RECOGNISE_QUEUE_LIMIT", 64, "int", "jobs waiting on the shared queue; past it, 503"),
    Setting("RECOGNISE_JOB_TIMEOUT_S", 120, "int", "a worker gives up on one photo after this"),
    # -- live games (webapp.events) -------------------------------------------------------------
    Setting("EVENTS_POLL_S", 0.2, "float", "how often the hub reads the watched games' versions"),
    Setting("EVENTS_HEARTBEAT_S", 15.0, "float", "a comment on a quiet stream, this often"),
    Setting(
        "EVENTS_STREAM_S",
        300.0,
        "float",
        "a stream's life; the browser reconnects and misses nothing",
    ),
    Setting("EVENT_STREAMS", 100, "int", "open streams per process (each holds a thread)"),
    Setting(
        "EVENT_STREAMS_PER_CLIENT",
        20,
        "int",
        "open streams per client address (a table's phones behind one router)",
    ),
)
BY_NAME: dict[str, Setting] = {setting.name: setting for setting in SETTINGS}


def defaults(instance: Path) -> dict[str, Any]:
    """Every setting's default for an app whose instance folder is ``instance``."""
    return {setting.name: setting.value(instance) for setting in SETTINGS}


def apply_defaults(config: dict[str, Any], instance: Path) -> None:
    """Put every default into ``config`` (a new app's, before anything that overrides them)."""
    config.update(defaults(instance))


def markdown_table() -> str:
    """The table of settings in docs/deploy.md (tests/webapp/test_settings.py checks it)."""
    rows = ["| setting | default | type | what |", "|---|---|---|---|"]
    for setting in SETTINGS:
        rows.append(
            f"| `{setting.name}` | `{setting.shown_default()}` | {setting.type} | {setting.doc} |"
        )
    return "\n".join(rows)
