"""Rate limits per client (Flask-Limiter): writes, new games and failed edit-token checks.

A client over a limit gets 429 with ``Retry-After``. The limits are config values (strings in
Flask-Limiter's notation, read at each request): ``RATELIMIT_WRITES`` for every write,
``RATELIMIT_NEW_GAMES`` for new games, ``RATELIMIT_BAD_TOKENS`` for answers 403 (a wrong or
missing edit token: only failures count, so a player with the right link is never slowed by it).
``RATELIMIT_ENABLED = False`` turns them off. Counts live in memory by default, per process
(``meldcam serve --processes N`` gives each process 1/N of each limit: ``split_limits``);
when several nodes serve one game set ``RATELIMIT_STORAGE_URI`` (``MELDCAM_RATELIMIT_STORAGE_URI``)
to a shared store such as ``redis://host:6379``. The client is the request's remote address:
behind a reverse proxy, start ``meldcam serve --proxy ADDRESS`` so that it is the player's, not
the proxy's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from flask import Flask, Response, current_app
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address

DEFAULTS = {
    "RATELIMIT_ENABLED": True,
    "RATELIMIT_STORAGE_URI": "memory://",
    "RATELIMIT_HEADERS_ENABLED": True,
    "RATELIMIT_SWALLOW_ERRORS": True,  # a shared store that is down must not turn into 500s
    "RATELIMIT_WRITES": "60 per minute;600 per hour",
    "RATELIMIT_NEW_GAMES": "20 per minute;200 per day",
    "RATELIMIT_BAD_TOKENS": "20 per minute;100 per hour",
}
EXTENSION_KEY = "meldcam_limiter"

WRITES = (
    "api.recognise",
    "api.create_game",
    "api.add_hand",
    "api.edit_hand",
    "api.undo_hand",
    "pages.create_game",
    "pages.add_hand",
    "pages.edit_hand",
    "pages.undo",
    "live.send_rack",
    "live.revoke_api",
    "live.revoke_page",
)
NEW_GAMES = ("api.create_game", "pages.create_game")
TOKEN_CHECKS = (
    "api.add_hand",
    "api.edit_hand",
    "api.undo_hand",
    "pages.claim",
    "pages.new_hand",
    "pages.edit_hand_page",
    "pages.add_hand",
    "pages.edit_hand",
    "pages.undo",
    "live.join",
    "live.send_rack",
    "live.seat_links",
    "live.revoke_api",
    "live.revoke_page",
)


LIMITS = ("RATELIMIT_WRITES", "RATELIMIT_NEW_GAMES", "RATELIMIT_BAD_TOKENS")


def split_limits(app: Flask, processes: int) -> None:
    """Before ``meldcam serve --processes N`` forks: with counts kept in each process's memory,
    each process allows 1/N of every limit (rounded up), so that together they never allow more
    than the limit (a client whose requests all reach one process is held to 1/N of it: the
    limits are far above what a table asks). A shared store needs no split."""
    import math

    import limits

    if processes <= 1 or not str(app.config["RATELIMIT_STORAGE_URI"]).startswith("memory:"):
        return
    for name in LIMITS:
        parts = []
        for item in limits.parse_many(str(app.config[name])):
            share = math.ceil(item.amount / processes)
            parts.append(f"{share} per {item.multiples} {item.GRANULARITY.name}")
        app.config[name] = ";".join(parts)


def _setting(name: str) -> Callable[[], str]:
    return lambda: str(current_app.config[name])


def _refused(response: Response) -> bool:
    return response.status_code == 403


def init_throttle(app: Flask) -> Limiter:
    """A limiter of this app's own (its counts are not shared with another app in the process)."""
    for name, value in DEFAULTS.items():
        app.config.setdefault(name, value)
    limiter = Limiter(get_remote_address, app=app)
    app.extensions[EXTENSION_KEY] = limiter

    def wrap(endpoints: Iterable[str], decorator: Callable) -> None:  # type: ignore[type-arg]
        for endpoint in endpoints:
            app.view_functions[endpoint] = decorator(app.view_functions[endpoint])

    wrap(WRITES, limiter.shared_limit(_setting("RATELIMIT_WRITES"), scope="writes"))
    wrap(NEW_GAMES, limiter.shared_limit(_setting("RATELIMIT_NEW_GAMES"), scope="new-games"))
    wrap(
        TOKEN_CHECKS,
        limiter.shared_limit(
            _setting("RATELIMIT_BAD_TOKENS"), scope="bad-tokens", deduct_when=_refused
        ),
    )
    return limiter
