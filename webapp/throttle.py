"""Rate limits per client (Flask-Limiter): writes, new games and failed edit-token checks.

A client over a limit gets 429 with ``Retry-After``. The limits are config values (strings in
Flask-Limiter's notation, read at each request; defaults in ``webapp.settings``):
``RATELIMIT_WRITES`` for every write (every route taking POST, PUT, PATCH or DELETE, except those
``UNLIMITED`` names, each with its reason: the pages' scoring and checking, which store nothing),
``RATELIMIT_NEW_GAMES`` for new games, ``RATELIMIT_BAD_TOKENS`` for answers 403 (a wrong or missing
edit token or seat link). That one is counted and enforced only once a request's token has failed
(``count_refusals``): a request with the right token is never counted and never refused by it, so a
guessing phone behind the same router (or every player behind a proxy started without ``--proxy``)
cannot lock the host out; past the limit, a wrong token is a 429 instead of a 403. The tokens'
128-192 random bits are what keeps them safe; this limit only bounds the work and noise of
guessing.
``RATELIMIT_ENABLED = False`` turns them off. Counts live in memory by default, per process
(``meldcam serve --processes N`` gives each process 1/N of each limit: ``split_limits``);
when several nodes serve one game set ``RATELIMIT_STORAGE_URI`` (``MELDCAM_RATELIMIT_STORAGE_URI``)
to a shared store such as ``redis://host:6379``. The client is the request's remote address:
behind a reverse proxy, start ``meldcam serve --proxy ADDRESS`` so that it is the player's, not
the proxy's.
"""

from __future__ import annotations

import functools
import logging
import math
import time
from collections.abc import Callable, Iterable
from typing import Any

import limits
from flask import Flask, current_app
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from werkzeug.exceptions import TooManyRequests

EXTENSION_KEY = "meldcam_limiter"
BAD_TOKENS_SCOPE = "bad-tokens"

log = logging.getLogger(__name__)

WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# The write routes RATELIMIT_WRITES leaves alone, each with its reason. Every other route that
# takes a write method gets it (``write_endpoints``): a new one cannot be forgotten.
UNLIMITED: dict[str, str] = {
    "api.check": "stores nothing: the checker page asks it at each change of the melds",
    "api.table": "stores nothing: the checker page asks it with api.check",
    "api.score": "stores nothing: the hand page asks it at each tap",
    "api.pieces": "stores nothing: a game's piece list (POST only to carry its options)",
    "api.hint": "stores nothing; HINT_BUDGET_S bounds each answer's search",
    "api.frame": (
        "stores nothing: a live camera sends frames back to back; the photo reader's turns "
        "(RECOGNISE_QUEUE, else 503) bound the work"
    ),
}
NEW_GAMES = (
    "api.create_game",
    "pages.create_game",
    "pages.rematch",
    "clubs.api_create_club",
    "clubs.create_club_page",
    "clubs.start_match_page",
)
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
    "pages.rematch",
    "live.join",
    "live.send_rack",
    "live.seat_links",
    "live.revoke_api",
    "live.revoke_page",
    "api.create_game",
    "clubs.api_add_player",
    "clubs.claim",
    "clubs.add_player_page",
    "clubs.start_match_page",
)


LIMITS = ("RATELIMIT_WRITES", "RATELIMIT_NEW_GAMES", "RATELIMIT_BAD_TOKENS")


def split_limits(app: Flask, processes: int) -> None:
    """Before ``meldcam serve --processes N`` forks: with counts kept in each process's memory,
    each process allows 1/N of every limit (rounded up), so that together they never allow more
    than the limit (a client whose requests all reach one process is held to 1/N of it: the
    limits are far above what a table asks). A shared store needs no split."""
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


def _refusal_wait(limiter: Limiter) -> int | None:
    """Count one refused token against ``RATELIMIT_BAD_TOKENS`` in the limiter's store; the
    seconds this client must wait when it is past the limit, else None. A store that is down
    counts nothing (``RATELIMIT_SWALLOW_ERRORS``): a 403 stays a 403, never a 500."""
    if not limiter.enabled:
        return None
    prefix = str(current_app.config["RATELIMIT_KEY_PREFIX"] or "")
    keys = [*([prefix] if prefix else []), get_remote_address(), BAD_TOKENS_SCOPE]
    waits = []
    try:
        for item in limits.parse_many(str(current_app.config["RATELIMIT_BAD_TOKENS"])):
            if not limiter.limiter.hit(item, *keys):
                reset = limiter.limiter.get_window_stats(item, *keys).reset_time
                waits.append(max(1, math.ceil(reset - time.time())))
    except Exception:
        if not current_app.config["RATELIMIT_SWALLOW_ERRORS"]:
            raise
        log.exception("failed-token limit not counted")
        return None
    return max(waits) if waits else None


def count_refusals(limiter: Limiter) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A view decorator: its answer 403 (a wrong or missing token, raised or returned) counts
    against ``RATELIMIT_BAD_TOKENS`` and, past it, becomes a 429 with ``Retry-After``. Unlike
    Flask-Limiter's ``deduct_when`` (which counts only failures but tests the limit before the
    view, refusing the right token too), nothing is tested before the token is: any other
    answer, the right token's first, passes as it is."""

    def decorate(view: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(view)
        def counted(*args: Any, **kwargs: Any) -> Any:
            # flask types current_app as the app, not the proxy it is: the app behind it
            app = current_app._get_current_object()  # type: ignore[attr-defined]
            try:
                answer = app.make_response(view(*args, **kwargs))
            except Exception as error:  # the answer Flask would give it (its error handler's)
                answer = app.make_response(app.handle_user_exception(error))
            if answer.status_code != 403:
                return answer
            wait = _refusal_wait(limiter)
            if wait is None:
                return answer
            refused = app.make_response(app.handle_user_exception(TooManyRequests()))
            refused.headers["Retry-After"] = str(wait)
            return refused

        return counted

    return decorate


def write_endpoints(app: Flask) -> list[str]:
    """The endpoints of every route that takes a write method (POST, PUT, PATCH, DELETE)."""
    return sorted(
        {
            rule.endpoint
            for rule in app.url_map.iter_rules()
            if (rule.methods or set()) & WRITE_METHODS
        }
    )


def init_throttle(app: Flask) -> Limiter:
    """A limiter of this app's own (its counts are not shared with another app in the process),
    on every route of the app: call it once they are all registered."""
    writes = write_endpoints(app)
    stale = sorted(set(UNLIMITED) - set(writes))
    if stale:
        raise RuntimeError(f"UNLIMITED names no write route: {stale}")
    limiter = Limiter(get_remote_address, app=app)
    app.extensions[EXTENSION_KEY] = limiter

    def wrap(endpoints: Iterable[str], decorator: Callable[..., Any]) -> None:
        for endpoint in endpoints:
            app.view_functions[endpoint] = decorator(app.view_functions[endpoint])

    wrap(TOKEN_CHECKS, count_refusals(limiter))  # innermost: it sees the view's own answer
    limited = [endpoint for endpoint in writes if endpoint not in UNLIMITED]
    wrap(limited, limiter.shared_limit(_setting("RATELIMIT_WRITES"), scope="writes"))
    wrap(NEW_GAMES, limiter.shared_limit(_setting("RATELIMIT_NEW_GAMES"), scope="new-games"))
    return limiter
