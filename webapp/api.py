"""The JSON API (``/api``): same shapes as the CLI; every error is ``{"error": message}`` with 4xx.

Writes to a game need its edit token in the ``X-Edit-Token`` header (403 otherwise); they are not
form posts, so they need no CSRF token (a browser cannot send that header cross-site without
CORS, which this app never grants).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request, send_from_directory, url_for

from scorer import api as scorer_api
from scorer.errors import MeldcamError
from webapp import matches, photos
from webapp.db import Game, Photo, reading, transaction

bp = Blueprint("api", __name__)


class ApiError(Exception):
    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


@bp.errorhandler(ApiError)
def _api_error(error: ApiError) -> tuple[Response, int]:
    return jsonify({"error": error.message}), error.status


@bp.errorhandler(matches.GameUnavailable)
@bp.errorhandler(photos.RecogniserMissing)
def _unavailable(error: Exception) -> tuple[Response, int]:
    return jsonify({"error": str(error)}), 503


@bp.errorhandler(MeldcamError)
def _bad_input(error: MeldcamError) -> tuple[Response, int]:
    return jsonify({"error": str(error)}), 400


@bp.errorhandler(matches.NotFound)
def _not_found(error: matches.NotFound) -> tuple[Response, int]:
    return jsonify({"error": str(error)}), 404


def _json_object() -> dict[str, Any]:
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise ApiError("send a JSON object with Content-Type: application/json", 400)
    return body


def _field(body: dict[str, Any], name: str, default: Any = ...) -> Any:
    if name in body:
        return body[name]
    if default is ...:
        raise ApiError(f"missing field {name!r}", 400)
    return default


def _pieces_list(value: Any, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(p, str) for p in value):
        raise ApiError(f"{what} must be a list of piece names like red-7, 3-8 or QH", 400)
    return value


@bp.post("/recognise")
def recognise() -> tuple[Response, int]:
    """Read a photo; with ``game`` (a game's id), dominoes are read for that game's set."""
    kind = request.form.get("kind", "")
    if kind not in photos.KINDS:
        raise ApiError(f"kind must be one of {', '.join(photos.KINDS)}, not {kind!r}", 400)
    upload = request.files.get("photo")
    if upload is None:
        raise ApiError("attach the photo as the multipart field 'photo'", 400)
    checked = photos.check_photo(upload.read())
    game_id = request.form.get("game") or None
    set_name = None
    if game_id is not None:  # an unknown game is a 404 before any reading
        with reading() as session:
            rules = matches.rules_of(matches.get_game(session, game_id))
        set_name = photos.domino_set_name(rules) if kind == "dominoes" else None
    result = photos.recognise(kind, checked, set_name)
    filename = None
    try:
        with transaction() as session:
            if game_id is not None and not _may_edit(matches.get_game(session, game_id)):
                game_id = None  # a viewer's photo is kept, but not attached to the game
            filename = photos.save_photo(current_app, checked)
            photo_id = filename.split(".")[0]
            session.add(
                Photo(
                    id=photo_id,
                    filename=filename,
                    kind=kind,
                    width=checked.width,
                    height=checked.height,
                    game_id=game_id,
                    recognition=result,
                )
            )
    except Exception:
        if filename is not None:  # the row was not saved: do not keep an orphan file
            (photos.photo_folder(current_app) / filename).unlink(missing_ok=True)
        raise
    result["photo"] = {
        "id": photo_id,
        "url": url_for("api.photo", photo_id=photo_id),
        "width": checked.width,
        "height": checked.height,
    }
    return jsonify(result), 200


@bp.get("/photos/<photo_id>")
def photo(photo_id: str) -> Response:
    with reading() as session:
        record = session.get(Photo, photo_id) if len(photo_id) <= 32 else None
        if record is None:
            raise ApiError("no photo with this id", 404)
        filename = record.filename
    return send_from_directory(photos.photo_folder(current_app), filename, max_age=3600)


@bp.post("/check")
def check() -> Response:
    body = _json_object()
    melds = _field(body, "melds")
    if not isinstance(melds, list):
        raise ApiError("melds must be a list of melds, each a list of piece names", 400)
    melds = [_pieces_list(meld, "each meld") for meld in melds]
    opening = _field(body, "opening", False)
    if not isinstance(opening, bool):
        raise ApiError("opening must be true or false", 400)
    matches.load_rules(_field(body, "game"), _field(body, "options", None))
    return jsonify(scorer_api.check(body["game"], body.get("options"), melds, opening=opening))


@bp.post("/table")
def table() -> Response:
    body = _json_object()
    pieces = _pieces_list(_field(body, "pieces"), "pieces")
    matches.load_rules(_field(body, "game"), _field(body, "options", None))
    return jsonify(scorer_api.table(body["game"], body.get("options"), pieces))


@bp.post("/score")
def score() -> Response:
    body = _json_object()
    hand = _field(body, "hand")
    matches.load_rules(_field(body, "game"), _field(body, "options", None))
    return jsonify(matches.score_hand(body["game"], body.get("options"), hand))


@bp.get("/catalogue")
def catalogue() -> Response:
    """Games with their options, presets and player counts (for the new-game picker)."""
    return jsonify(matches.catalogue())


@bp.post("/pieces")
def pieces() -> Response:
    """Every valid piece of a game's set, in picker order, and which recogniser reads them."""
    body = _json_object()
    rules = matches.load_rules(_field(body, "game"), _field(body, "options", None))
    return jsonify({"pieces": matches.piece_names(rules), "kind": matches.recogniser_kind(rules)})


def _links(game_id: str, edit_token: str) -> dict[str, str]:
    return {
        "read": url_for("pages.game", game_id=game_id, _external=True),
        "edit": url_for("pages.claim", game_id=game_id, token=edit_token, _external=True),
    }


@bp.post("/games")
def create_game() -> tuple[Response, int]:
    body = _json_object()
    with transaction() as session:
        created = matches.create_game(
            session, _field(body, "game"), _field(body, "options", None), _field(body, "players")
        )
        session.flush()
        result = matches.game_json(matches.get_game(session, created.game_id))
    result["edit_token"] = created.edit_token
    result["links"] = _links(created.game_id, created.edit_token)
    return jsonify(result), 201


@bp.get("/games/<game_id>")
def get_game(game_id: str) -> Response:
    with reading() as session:
        return jsonify(matches.game_json(matches.get_game(session, game_id)))


def _may_edit(record: Game) -> bool:
    """The edit token in the header, or the edit link opened in this browser (session)."""
    from webapp.pages import can_edit

    return matches.token_matches(record, request.headers.get("X-Edit-Token")) or can_edit(record)


def _edit(game_id: str, change: Callable[[Any, Game], Any]) -> Any:
    """Run ``change(session, game)`` in one transaction, after checking the edit token."""
    with transaction() as session:
        record = matches.get_game(session, game_id)
        if not matches.token_matches(record, request.headers.get("X-Edit-Token")):
            raise ApiError("this needs the game's edit link (X-Edit-Token header)", 403)
        outcome = change(session, record)
        return outcome, matches.game_json(record)


@bp.post("/games/<game_id>/hands")
def add_hand(game_id: str) -> tuple[Response, int]:
    body = _json_object()
    hand = body.get("hand", body)

    def change(session: Any, record: Game) -> Any:
        return matches.add_hand(session, record, hand).number

    number, state = _edit(game_id, change)
    return jsonify({"number": number, "game": state}), 201


@bp.put("/games/<game_id>/hands/<int:number>")
def edit_hand(game_id: str, number: int) -> Response:
    body = _json_object()
    hand = body.get("hand", body)

    def change(session: Any, record: Game) -> Any:
        return matches.edit_hand(session, record, number, hand).number

    edited, state = _edit(game_id, change)
    return jsonify({"number": edited, "game": state})


@bp.delete("/games/<game_id>/hands/last")
def undo_hand(game_id: str) -> Response:
    undone, state = _edit(game_id, matches.undo_last_hand)
    return jsonify({"undone": undone, "game": state})


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
