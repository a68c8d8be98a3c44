"""The JSON API (``/api``): same shapes as the CLI; every error is ``{"error": message}`` with 4xx.

Writes to a game need its edit token in the ``X-Edit-Token`` header (403 otherwise); they are not
form posts, so they need no CSRF token (a browser cannot send that header cross-site without
CORS, which this app never grants). Writes take an ``Idempotency-Key`` header (see
``webapp.idempotency``); bodies are bounded before they are parsed (``webapp.bounds``).
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from typing import Any

from flask import (
    Blueprint,
    Response,
    current_app,
    g,
    jsonify,
    request,
    send_file,
    url_for,
)
from sqlalchemy.orm import Session

from meldcam.vocabulary import AUTO_SET, KINDS
from scorer import api as scorer_api
from scorer.errors import MeldcamError
from webapp import bounds, clubs, idempotency, matches, photos, workers
from webapp.db import Game, reading, transaction
from webapp.i18n import error_json, lazy_gettext, localise
from webapp.idempotency import Answer

bp = Blueprint("api", __name__)


class ApiError(Exception):
    def __init__(self, message: Any, status: int) -> None:
        super().__init__(str(message))
        self.message = message  # a lazy gettext string: English and the asked language
        self.status = status


@bp.errorhandler(ApiError)
def _api_error(error: ApiError) -> tuple[Response, int]:
    return jsonify(error_json(error.message, bounds.clip)), error.status


@bp.errorhandler(photos.Busy)
def _busy(error: photos.Busy) -> tuple[Response, int]:
    response = jsonify(error_json(error, bounds.clip))
    response.headers["Retry-After"] = str(error.retry_after)
    return response, 503


@bp.errorhandler(workers.QueueUnavailable)
def _no_reader(error: workers.QueueUnavailable) -> tuple[Response, int]:
    response = jsonify(error_json(error, bounds.clip))
    response.headers["Retry-After"] = str(error.retry_after)
    return response, 503


@bp.errorhandler(photos.RecogniserMissing)
def _unavailable(error: Exception) -> tuple[Response, int]:
    return jsonify(error_json(error, bounds.clip)), 503


@bp.errorhandler(MeldcamError)
def _bad_input(error: MeldcamError) -> tuple[Response, int]:
    return jsonify(error_json(error, bounds.clip)), 400


@bp.errorhandler(matches.NotFound)
def _not_found(error: matches.NotFound) -> tuple[Response, int]:
    return jsonify(error_json(error, bounds.clip)), 404


def json_object() -> dict[str, Any]:
    """The JSON object sent, within ``webapp.bounds`` (checked before it is parsed in full)."""
    if not request.is_json:
        raise ApiError(lazy_gettext("send a JSON object with Content-Type: application/json"), 400)
    limit = bounds.MAX_JSON_BYTES
    if (request.content_length or 0) > limit:
        raise ApiError(
            lazy_gettext(
                "the request is too large: at most %(kilobytes)s KB of JSON",
                kilobytes=limit // 1024,
            ),
            413,
        )
    raw = request.stream.read(limit + 1)
    g.raw_body = raw
    try:
        body = bounds.loads(raw)
    except bounds.TooLarge as error:
        raise ApiError(error, 413) from None
    except bounds.BadJson as error:
        raise ApiError(error, 400) from None
    if not isinstance(body, dict):
        raise ApiError(lazy_gettext("send a JSON object with Content-Type: application/json"), 400)
    return body


def _sent() -> str:
    """The fingerprint of this write for its Idempotency-Key: body and edit token."""
    return idempotency.fingerprint(
        getattr(g, "raw_body", b""), request.headers.get("X-Edit-Token", "")
    )


def answer_response(answer: Answer, body: Any = None) -> tuple[Response, int]:
    response = jsonify(answer.body if body is None else body)
    if answer.replayed:
        response.headers[idempotency.REPLAYED_HEADER] = "true"
    return response, answer.status


def _field(body: dict[str, Any], name: str, default: Any = ...) -> Any:
    if name in body:
        return body[name]
    if default is ...:
        raise ApiError(lazy_gettext("missing field %(name)s", name=repr(name)), 400)
    return default


def pieces_list(value: Any, what: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(p, str) for p in value):
        raise ApiError(
            lazy_gettext("%(what)s must be a list of piece names like red-7, 3-8 or QH", what=what),
            400,
        )
    bounds.check_pieces(len(value))
    bounds.check_piece_names(value)
    return value


def _bounded(value: Any) -> Any:
    """``value`` (a hand), refused if it names more pieces than any table holds."""
    try:
        bounds.check_pieces(bounds.count_texts(value))
    except bounds.BadJson as error:
        raise ApiError(error, 400) from None
    return value


def _upload_kind() -> str:
    kind = request.form.get("kind", "")
    if kind not in KINDS:
        raise ApiError(
            lazy_gettext(
                "kind must be one of %(kinds)s, not %(kind)s",
                kinds=", ".join(KINDS),
                kind=bounds.quote(kind),
            ),
            400,
        )
    return kind


def _read_upload(kind: str, game_id: str | None) -> tuple[photos.CheckedPhoto, dict[str, Any]]:
    """The uploaded photo (or live frame), checked and read in its turn at the photo reader
    (a full queue is a 503), for ``game_id``'s set where there is one; nothing is stored."""
    upload = request.files.get("photo")
    if upload is None:
        raise ApiError(lazy_gettext("attach the photo as the multipart field 'photo'"), 400)
    with photos.turn():  # one photo decoded and read at a time; a full queue is a 503
        g.read_started = time.perf_counter()  # its turn came (a live frame reports its time)
        checked = photos.check_photo(upload.read())
        # A photo of no game (a disputed meld) is read for the deck its letters show, as a
        # game's are by default: an English deck's reading is unchanged where none is told.
        set_name = photos.set_name_of(kind, None)
        game_set = None
        if game_id is not None:  # an unknown game is a 404 before any reading
            with reading() as session:
                rules = matches.rules_of(matches.get_game(session, game_id))
                set_name = photos.set_name_of(kind, rules)
                if set_name == AUTO_SET:  # what the game's earlier photos were told
                    game_set = photos.game_told_set(session, game_id, kind)
        result = photos.recognise_for_game(kind, checked, set_name, game_set)
    return checked, result


@bp.post("/recognise")
def recognise() -> tuple[Response, int]:
    """Read a photo; with ``game`` (a game's id), dominoes are read for that game's set."""
    kind = _upload_kind()
    game_id = request.form.get("game") or None
    checked, result = _read_upload(kind, game_id)
    with transaction() as session:
        if game_id is not None and not _may_edit(matches.get_game(session, game_id)):
            game_id = None  # a viewer's photo is kept, but not attached to the game
        photo_id = photos.save_photo(
            session,
            checked,
            kind=kind,
            width=checked.width,
            height=checked.height,
            game_id=game_id,
            recognition=result,
        )
    result["photo"] = {
        "id": photo_id,
        "url": url_for("api.photo", photo_id=photo_id),
        "width": checked.width,
        "height": checked.height,
    }
    return jsonify(result), 200


@bp.post("/frames")
def frame() -> tuple[Response, int]:
    """Read one frame of a phone's live camera view: as ``/api/recognise`` reads a
    photo (the same checks and bounds, in its turn at the same reader, a busy one a 503 with
    ``Retry-After``), but the frame is never stored, neither on disk nor in the database: the
    answer carries the reading and the frame's size only. A frozen frame is then sent to
    ``/api/recognise`` as a photo, as one taken today."""
    kind = _upload_kind()
    started = time.perf_counter()
    checked, result = _read_upload(kind, request.form.get("game") or None)
    done = time.perf_counter()
    result["frame"] = {
        "width": checked.width,
        "height": checked.height,
        # checked and read, once its turn came; and with the wait for its turn
        "server_ms": round((done - g.read_started) * 1000, 1),
        "total_ms": round((done - started) * 1000, 1),
    }
    response = jsonify(result)
    response.headers["Cache-Control"] = "no-store"
    return response, 200


@bp.get("/photos/<photo_id>")
def photo(photo_id: str) -> Response:
    with reading() as session:
        found = photos.stored_photo(session, photo_id)
    if found is None:
        raise ApiError(lazy_gettext("no photo with this id"), 404)
    filename, data = found
    response = send_file(io.BytesIO(data), download_name=filename, max_age=3600, etag=True)
    response.cache_control.public = False  # a photo of someone's table: no shared cache
    response.cache_control.private = True
    return response


@bp.post("/check")
def check() -> Response:
    body = json_object()
    melds = _field(body, "melds")
    if not isinstance(melds, list):
        raise ApiError(
            lazy_gettext("melds must be a list of melds, each a list of piece names"), 400
        )
    bounds.check_pieces(sum(len(m) if isinstance(m, list) else 1 for m in melds), len(melds))
    melds = [pieces_list(meld, lazy_gettext("each meld")) for meld in melds]
    opening = _field(body, "opening", False)
    if not isinstance(opening, bool):
        raise ApiError(lazy_gettext("opening must be true or false"), 400)
    matches.load_rules(_field(body, "game"), _field(body, "options", None))
    answer = scorer_api.check(
        body["game"], body.get("options"), melds, opening=opening, translate=localise
    )
    return jsonify(answer)


@bp.post("/table")
def table() -> Response:
    body = json_object()
    pieces = pieces_list(_field(body, "pieces"), lazy_gettext("pieces"))
    matches.load_rules(_field(body, "game"), _field(body, "options", None))
    return jsonify(scorer_api.table(body["game"], body.get("options"), pieces, translate=localise))


@bp.post("/hint")
def hint() -> Response:
    """The best move for ``position``; within the app's ``HINT_BUDGET_S`` (default 0.5 s) it is
    the best found so far, with ``"exact": false`` and a note, when the search ran past it."""
    body = json_object()
    position = _bounded(_field(body, "position"))
    matches.load_rules(_field(body, "game"), _field(body, "options", None))
    budget = current_app.config["HINT_BUDGET_S"]
    answer = scorer_api.hint(body["game"], body.get("options"), position, budget, localise)
    answer.setdefault("exact", True)
    return jsonify(answer)


@bp.post("/score")
def score() -> Response:
    body = json_object()
    hand = _bounded(_field(body, "hand"))
    matches.load_rules(_field(body, "game"), _field(body, "options", None))
    return jsonify(matches.score_hand(body["game"], body.get("options"), hand))


@bp.get("/catalogue")
def catalogue() -> Response:
    """Games with their options, presets and player counts (for the new-game picker)."""
    return jsonify(matches.catalogue())


@bp.post("/pieces")
def pieces() -> Response:
    """Every valid piece of a game's set, in picker order, and which recogniser reads them."""
    body = json_object()
    rules = matches.load_rules(_field(body, "game"), _field(body, "options", None))
    return jsonify({"pieces": matches.piece_names(rules), "kind": matches.recogniser_kind(rules)})


def _links(game_id: str, edit_token: str) -> dict[str, str]:
    return {
        "read": url_for("pages.game", game_id=game_id, _external=True),
        "edit": url_for("pages.claim", game_id=game_id, token=edit_token, _external=True),
    }


# a new game's fields, with their defaults (... : required)
FIELDS: tuple[tuple[str, Any], ...] = (("game", ...), ("options", None), ("players", ...))


@bp.post("/games")
def create_game() -> tuple[Response, int]:
    """A new game; with ``"club": id`` (and the club's edit token in ``X-Club-Token``), a match
    of that club whose players are named from its list (``webapp.clubs.start_match``)."""
    body = json_object()
    key = idempotency.header_key()
    tokens: list[str] = []

    def work(session: Session, stored_key: str | None) -> Answer:
        edit_token = idempotency.derived_token(stored_key) if stored_key else None
        game, options, players = (_field(body, n, d) for n, d in FIELDS)
        if body.get("club") is not None:  # a match of a club: its players, its edit token
            club = clubs.get_club(session, body["club"])
            clubs.require_edit(club)
            created = clubs.start_match(session, club, game, options, players, edit_token)
        else:
            created = matches.create_game(session, game, options, players, edit_token)
        tokens.append(created.edit_token)
        session.flush()
        answer = matches.game_json(matches.get_game(session, created.game_id))
        if body.get("club") is not None:
            answer["club"] = body["club"]
        return Answer(201, answer)

    club_token = request.headers.get(clubs.TOKEN_HEADER, "")
    answer = idempotency.run(key, idempotency.fingerprint(_sent(), club_token), work)
    token = idempotency.created_token(tokens, key)
    result = dict(answer.body or {})
    result["edit_token"] = token
    result["links"] = _links(result["id"], token)
    return answer_response(answer, result)


@bp.get("/games/<game_id>")
def get_game(game_id: str) -> Response:
    with reading() as session:
        return jsonify(matches.game_json(matches.get_game(session, game_id)))


def _may_edit(record: Game) -> bool:
    """The edit token in the header, or the edit link opened in this browser (session)."""
    from webapp.pages import can_edit

    return matches.token_matches(record, request.headers.get("X-Edit-Token")) or can_edit(record)


def _edit(
    game_id: str, status: int, name: str, change: Callable[[Any, Game], Any]
) -> tuple[Response, int]:
    """Run ``change(session, game)`` in one transaction, after checking the edit token; answer
    ``{name: outcome, "game": state}``. With an Idempotency-Key, a retry answers the first."""
    key = idempotency.header_key()

    def work(session: Session, _stored_key: str | None) -> Answer:
        record = matches.get_game(session, game_id, for_update=True)
        if not matches.token_matches(record, request.headers.get("X-Edit-Token")):
            raise ApiError(
                lazy_gettext("this needs the game's edit link (X-Edit-Token header)"), 403
            )
        outcome = change(session, record)
        return Answer(status, {name: outcome, "game": matches.game_json(record)})

    return answer_response(idempotency.run(key, _sent(), work))


@bp.post("/games/<game_id>/hands")
def add_hand(game_id: str) -> tuple[Response, int]:
    body = json_object()
    hand = _bounded(body.get("hand", body))

    def change(session: Any, record: Game) -> Any:
        return matches.add_hand(session, record, hand).number

    return _edit(game_id, 201, "number", change)


@bp.put("/games/<game_id>/hands/<int:number>")
def edit_hand(game_id: str, number: int) -> tuple[Response, int]:
    body = json_object()
    hand = _bounded(body.get("hand", body))

    def change(session: Any, record: Game) -> Any:
        return matches.edit_hand(session, record, number, hand).number

    return _edit(game_id, 200, "number", change)


@bp.delete("/games/<game_id>/hands/last")
def undo_hand(game_id: str) -> tuple[Response, int]:
    return _edit(game_id, 200, "undone", matches.undo_last_hand)


@bp.get("/games/<game_id>/export.json")
def export_json(game_id: str) -> Response:
    with reading() as session:
        response = jsonify(matches.game_json(matches.get_game(session, game_id)))
    response.headers["Content-Disposition"] = f'attachment; filename="meldcam-{game_id}.json"'
    return response


@bp.get("/games/<game_id>/export.csv")
def export_csv(game_id: str) -> Response:
    with reading() as session:
        text = matches.export_csv(matches.get_game(session, game_id))
    return Response(
        text,
        mimetype="text/csv",
        headers={"Content-Disposition": f'attachment; filename="meldcam-{game_id}.csv"'},
    )
