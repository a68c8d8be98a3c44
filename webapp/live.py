"""Routes of the live game: the event stream, the seats' links and the racks sent
from the players' own phones.

- ``GET /api/games/<id>/events`` (anyone with the game's link): Server-Sent Events
  (``webapp.events``).
- ``GET /api/games/<id>/racks`` (anyone with the game's link): the hand being scored and, per
  seat, whether its phone joined and the rack it sent.
- ``PUT /api/games/<id>/racks/<seat>`` (that seat: ``X-Seat-Token``): ``{"hand", "pieces",
  "board"}``, the seat's own rack for the hand being scored.
- ``GET /api/games/<id>/seats``, ``POST /api/games/<id>/seats/<seat>/revoke`` (the host:
  ``X-Edit-Token``): each seat's link; a new link for a seat.
- ``GET /g/<id>/join/<token>`` (a seat's phone): keeps the seat in this browser, opens the game.
- ``POST /g/<id>/seats/<seat>/revoke`` (the host, edit link in this browser): the page's form.

A seat's token is refused (403) everywhere a seat may not go; writes to a seat's rack take an
``Idempotency-Key`` like every write. The seat's token travels in a header, never a cookie, on
the API: a browser cannot send it cross-site (no CORS), so no CSRF token is needed.
"""

from __future__ import annotations

import re
from typing import Any

from flask import (
    Blueprint,
    Response,
    current_app,
    g,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)
from sqlalchemy.orm import Session
from werkzeug.exceptions import BadRequest, Forbidden
from werkzeug.wrappers import Response as WerkzeugResponse
from werkzeug.wsgi import ClosingIterator

from scorer.errors import MeldcamError
from webapp import bounds, events, idempotency, matches, pages, seats
from webapp.api import ApiError, answer_response, json_object, pieces_list
from webapp.db import reading, transaction
from webapp.i18n import error_json, lazy_gettext, localise
from webapp.idempotency import Answer

bp = Blueprint("live", __name__)
SEAT_HEADER = "X-Seat-Token"
STREAMS_FULL_RETRY_S = 5


def _is_api() -> bool:
    return request.path.startswith("/api/")


def _refuse(message: Any, status: int) -> Any:
    """An error as the rest of the app answers it: JSON ``error`` (English) and ``error_text``
    (the asked language) on the API, the error page elsewhere."""
    if _is_api():
        return jsonify(error_json(message, bounds.clip)), status
    return render_template(
        "error.html", message=bounds.clip(localise(message)), code=status
    ), status


@bp.errorhandler(ApiError)
def _api_error(error: ApiError) -> Any:
    return _refuse(error.message, error.status)


@bp.errorhandler(seats.SeatRefused)
def _seat_refused(error: seats.SeatRefused) -> Any:
    return _refuse(error, 403)


@bp.errorhandler(seats.StaleHand)
def _stale(error: seats.StaleHand) -> Any:
    return _refuse(error, 409)


@bp.errorhandler(MeldcamError)
def _bad_input(error: MeldcamError) -> Any:
    return _refuse(error, 400)


@bp.errorhandler(matches.NotFound)
def _not_found(error: matches.NotFound) -> Any:
    return _refuse(error, 404)


# a version as sent: ASCII digits only. ``str.isdigit()`` also takes "²" or "①", which int()
# refuses (a 500), and "٣" or "３", which int() reads but no page of ours sends
VERSION_SENT = re.compile(r"[0-9]{1,12}")


def _resume_point(newest: int) -> int:
    """Where the stream starts: the browser's ``Last-Event-ID`` (a reconnect), else ``since``
    (the version the page was drawn at), else now; never past the newest version."""
    sent = request.headers.get("Last-Event-ID") or request.args.get("since")
    if sent is None or sent == "":
        return newest
    if not VERSION_SENT.fullmatch(sent):
        raise ApiError(
            lazy_gettext("Last-Event-ID and since must be a version number (0, 1, 2...)"), 400
        )
    return min(int(sent), newest)


@bp.get("/api/games/<game_id>/events")
def game_events(game_id: str) -> Any:
    """The game's changes as Server-Sent Events, from ``Last-Event-ID`` / ``since`` on."""
    with reading() as db:
        matches.get_game(db, game_id)
        newest = events.latest_version(db, game_id)
    after = _resume_point(newest)
    hub = events.hub_of(current_app)
    client = request.remote_addr or "unknown"
    if not hub.admit(client):
        busy = lazy_gettext("too many live pages are open on this server: the page tries again")
        response = jsonify(error_json(busy, bounds.clip))
        response.headers["Retry-After"] = str(STREAMS_FULL_RETRY_S)
        return response, 503
    # flask types current_app as the app itself, not as the proxy it is; the stream, run after
    # this request has ended, needs the app behind the proxy
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    # waitress says when the client hung up (``meldcam serve`` has it watch for that): the
    # stream then ends and frees its place at once, not at its next heartbeat
    gone = request.environ.get("waitress.client_disconnected")
    # werkzeug types ClosingIterator's items as bytes; it passes them on as they are, and the
    # Response encodes the stream's str chunks
    stream = events.stream(app, game_id, after, gone)
    body = ClosingIterator(stream, [lambda: hub.leave(client)])  # type: ignore[arg-type]
    return Response(
        body,
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


@bp.get("/api/games/<game_id>/racks")
def racks(game_id: str) -> Response:
    with reading() as db:
        return jsonify(seats.racks_json(db, matches.get_game(db, game_id)))


def _seat_of_request(db: Session, record: Any) -> int:
    seat = seats.seat_of(db, record, request.headers.get(SEAT_HEADER))
    if seat is None:
        raise seats.SeatRefused(seats.WRONG_LINK)
    return seat


@bp.put("/api/games/<game_id>/racks/<int:seat>")
def send_rack(game_id: str, seat: int) -> Any:
    """A seat's phone sends its own rack for the hand being scored (replacing what it sent)."""
    body = json_object()
    pieces = pieces_list(body.get("pieces"), "pieces")
    board = body.get("board")
    token = request.headers.get(SEAT_HEADER, "")
    sent = idempotency.fingerprint(getattr(g, "raw_body", b""), token)

    def work(db: Session, _stored_key: str | None) -> Answer:
        record = matches.get_game(db, game_id, for_update=True)
        own = _seat_of_request(db, record)
        if own != seat:
            raise seats.SeatRefused(lazy_gettext("a seat link sends only its own seat's rack"))
        return Answer(200, seats.send_rack(db, record, seat, body.get("hand"), pieces, board))

    return answer_response(idempotency.run(idempotency.header_key(), sent, work))


def _host_only(record: Any) -> None:
    if not matches.token_matches(record, request.headers.get("X-Edit-Token")):
        raise ApiError(
            lazy_gettext("only the host's edit link manages the seats (X-Edit-Token header)"), 403
        )


@bp.get("/api/games/<game_id>/seats")
def seat_links(game_id: str) -> Response:
    with reading() as db:
        record = matches.get_game(db, game_id)
        _host_only(record)
        rows = seats.seat_rows(db, record)
        return jsonify(
            [
                {
                    "seat": p.seat,
                    "player": p.name,
                    "link": seats.join_link(record, rows, p.seat),
                    "joined": bool(rows.get(p.seat) and rows[p.seat].joined_at),
                }
                for p in record.players
            ]
        )


@bp.post("/api/games/<game_id>/seats/<int:seat>/revoke")
def revoke_api(game_id: str, seat: int) -> Any:
    def work(db: Session, _stored_key: str | None) -> Answer:
        record = matches.get_game(db, game_id, for_update=True)
        _host_only(record)
        seats.revoke(db, record, seat)
        link = seats.join_link(record, seats.seat_rows(db, record), seat)
        return Answer(200, {"seat": seat, "link": link})

    sent = idempotency.fingerprint(b"", request.headers.get("X-Edit-Token", ""))
    return answer_response(idempotency.run(idempotency.header_key(), sent, work))


@bp.get("/g/<game_id>/join/<token>")
def join(game_id: str, token: str) -> Response:
    """A seat link: this browser becomes that seat's phone, then sees the game."""
    with transaction() as db:
        record = matches.get_game(db, game_id)
        seat = seats.seat_of(db, record, token)
        if seat is None:
            raise Forbidden(seats.WRONG_LINK)
        seats.join(db, record, seat)
    seats.remember_seat(game_id, token)
    return pages.no_store(redirect(url_for("pages.game", game_id=game_id)))


@bp.post("/g/<game_id>/seats/<int:seat>/revoke")
def revoke_page(game_id: str, seat: int) -> WerkzeugResponse:  # what flask.redirect declares
    pages.check_csrf()

    def work(db: Session, _stored_key: str | None) -> Answer:
        record = matches.get_game(db, game_id, for_update=True)
        pages.require_edit(record)
        seats.revoke(db, record, seat)
        return Answer(302, None, url_for("pages.game", game_id=game_id, _anchor="phones"))

    try:
        answer = idempotency.run(idempotency.form_key(), idempotency.form_fingerprint(), work)
    except matches.NotFound as error:
        raise BadRequest(str(error)) from None
    return redirect(str(answer.location))
