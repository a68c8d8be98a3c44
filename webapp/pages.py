"""Pages: new game, game (tally and chart), check a meld (dispute mode), end of hand.

Form posts carry a CSRF token kept in the session. Editing a game from the pages needs its edit
link: opening it stores the edit token in this browser's session (then redirects to the plain
game address, so the token does not linger in the address bar or history).
"""

from __future__ import annotations

import itertools
import secrets
from collections.abc import Callable
from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    make_response,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from sqlalchemy.orm import Session as DbSession
from werkzeug.exceptions import BadRequest, Forbidden

from scorer.errors import MeldcamError
from scorer.games import GAME_MODULES, describe_game, game_type
from webapp import boards, bounds, clubs, facts, idempotency, matches, sealing, seats
from webapp.db import Game, reading
from webapp.i18n import lazy_gettext, localise, localised_catalogue, localised_title
from webapp.idempotency import Answer

bp = Blueprint("pages", __name__)

CHART_WIDTH = 600
CHART_HEIGHT = 260
CHART_MARGIN = 48
CHART_RIGHT = 130  # room for the players' names at the line ends
CHART_NAME = 9  # characters of a name at a line end (the whole name is in the chart's label)
CHART_LABEL_GAP = 27  # viewBox units between two names at the line ends (font 22, box ~25)
CHART_TICKS = 8  # hand numbers on the x-axis at most
# outcomes as the tally shows them: short words (``webapp.facts``), the scorer's code otherwise
OUTCOME_WORDS = facts.short_outcome_words()


def csrf_token() -> str:
    token = session.get("csrf")
    if not token:
        token = secrets.token_urlsafe(24)
        session["csrf"] = token
    return str(token)


def idempotency_key() -> str:
    """A fresh key for a form that writes: sending the form again (a retry) sends the same."""
    return secrets.token_urlsafe(18)


@bp.app_context_processor
def _template_helpers() -> dict[str, Any]:
    return {
        "csrf_token": csrf_token,
        "idempotency_key": idempotency_key,
        "meldcam_facts": facts.facts_json,
    }


def no_store(response: Any) -> Response:
    """Pages that show, or hold in their forms, the edit rights: never kept in a cache."""
    response = make_response(response)
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.before_request
def check_csrf() -> None:
    if request.method == "POST":
        sent = request.form.get("csrf_token", "")
        expected = session.get("csrf", "")
        if not expected or not secrets.compare_digest(str(sent), str(expected)):
            raise BadRequest(lazy_gettext("this form has expired: reload the page and try again"))


@bp.errorhandler(matches.NotFound)
def _not_found(error: matches.NotFound) -> tuple[str, int]:
    return render_template("error.html", message=localise(error), code=404), 404


@bp.errorhandler(MeldcamError)
def _bad_input(error: MeldcamError) -> tuple[str, int]:
    return render_template("error.html", message=bounds.clip(localise(error)), code=400), 400


def _edit_tokens() -> dict[str, str]:
    """The edit tokens this browser holds, by game: kept sealed in the session cookie, which
    is signed but readable (``webapp.sealing``)."""
    tokens, plain = sealing.sealed_tokens(session.get("edit"), "edit")
    if plain:  # kept before tokens were sealed: sealed now
        session["edit"] = sealing.sealing(tokens, "edit")
    return tokens


def can_edit(record: Game) -> bool:
    return matches.token_matches(record, _edit_tokens().get(record.id))


def require_edit(record: Game) -> None:
    if not can_edit(record):
        raise Forbidden(lazy_gettext("only players with the game's edit link can change it"))


def _remember_edit(game_id: str, token: str) -> None:
    tokens = _edit_tokens()
    tokens[game_id] = token
    session["edit"] = sealing.sealing(tokens, "edit")
    session.permanent = True


def _form_options(game: str) -> dict[str, Any]:
    """Options posted by the new-game form (``opt-<game>-<name>``); empty means the default."""
    described = describe_game(game)
    options: dict[str, Any] = {}
    for spec in described.get("options", []):
        field = f"opt-{game}-{spec['name']}"
        if spec["type"] == "bool":
            options[spec["name"]] = field in request.form
        elif request.form.get(field, "").strip():
            options[spec["name"]] = request.form[field].strip()
    return options


def _my_games() -> list[dict[str, Any]]:
    """Games this browser holds an edit link for (newest first), for the start page."""
    found = []
    with reading() as db:
        for game_id in reversed(list(_edit_tokens())):
            record = db.get(Game, game_id)
            if record is not None and can_edit(record):
                title = localised_title(record.game)
                players = matches.player_names(record)
                found.append({"id": record.id, "title": title, "players": players})
    return found


@bp.get("/")
def index() -> Response:
    page = render_template(
        "index.html", games=localised_catalogue(), error=None, form={}, mine=_my_games()
    )
    return no_store(page)  # its form's key must be new each time it is shown


@bp.post("/games")
def create_game() -> Any:
    game = request.form.get("game", "")
    players = [request.form.get(f"player-{seat}", "") for seat in range(4)]

    def chosen(_db: DbSession) -> tuple[str, dict[str, Any], list[str]]:
        if game not in GAME_MODULES:
            raise MeldcamError(lazy_gettext("choose one of the games"))
        return game, _form_options(game), players

    try:
        return _start_game(chosen)
    except MeldcamError as error:
        page = render_template(
            "index.html",
            games=localised_catalogue(),
            error=bounds.clip(localise(error)),
            form=request.form,
            mine=_my_games(),
        )
        return page, 400


def _start_game(
    chosen: Callable[[DbSession], tuple[str, dict[str, Any], list[str]]],
    club_of: str | None = None,
) -> Response:
    """Create the game ``chosen`` names (game, options, players; read inside the transaction)
    under the form's idempotency key, give this browser its edit rights and open it. A retry
    after a lost answer gets the first answer, and the edit rights that answer gave. A game
    started from a club's match (``club_of``: a rematch) is a match of that club too."""
    key = idempotency.form_key()
    tokens: list[str] = []

    def work(db: DbSession, stored_key: str | None) -> Answer:
        game, options, players = chosen(db)
        edit_token = idempotency.derived_token(stored_key) if stored_key else None
        club = clubs.club_of_game(db, club_of) if club_of else None
        if club is not None:  # a rematch of a club's match is the club's too
            created = clubs.start_match(db, club, game, options, players, edit_token)
        else:
            created = matches.create_game(db, game, options, players, edit_token=edit_token)
        tokens.append(created.edit_token)
        location = url_for("pages.game", game_id=created.game_id)
        return Answer(302, {"game_id": created.game_id}, location)

    answer = idempotency.run(key, idempotency.form_fingerprint(), work)
    game_id = str((answer.body or {})["game_id"])
    token = idempotency.created_token(tokens, key)
    _remember_edit(game_id, token)
    if not answer.replayed:
        session["new_game"] = game_id
    return no_store(redirect(str(answer.location)))


@bp.get("/g/<game_id>/edit/<token>")
def claim(game_id: str, token: str) -> Response:
    with reading() as db:
        record = matches.get_game(db, game_id)
        if not matches.token_matches(record, token):
            raise Forbidden(lazy_gettext("this edit link is not right: ask for it again"))
    _remember_edit(game_id, token)
    return no_store(redirect(url_for("pages.game", game_id=game_id)))


def chart(players: list[str], running: list[dict[str, int]], target: int | None) -> dict[str, Any]:
    """Polylines of the running totals in a fixed viewBox (drawn as inline SVG)."""
    values = [0] + [v for row in running for v in row.values()]
    if target:
        values.append(target)
    low, high = min(values), max(values)
    span = max(high - low, 1)
    steps = max(len(running), 1)
    inner_w = CHART_WIDTH - CHART_MARGIN - CHART_RIGHT
    inner_h = CHART_HEIGHT - 2 * CHART_MARGIN

    def x(i: int) -> float:
        return round(CHART_MARGIN + inner_w * i / steps, 1)

    def y(v: int) -> float:
        return round(CHART_HEIGHT - CHART_MARGIN - inner_h * (v - low) / span, 1)

    lines = []
    for seat, name in enumerate(players):
        points = [(x(0), y(0))] + [(x(i + 1), y(row[name])) for i, row in enumerate(running)]
        lines.append(
            {
                "name": name,
                "short": name if len(name) <= CHART_NAME else name[: CHART_NAME - 1] + "…",
                "seat": seat,
                "points": " ".join(f"{px},{py}" for px, py in points),
                "end": points[-1],
                "label_y": points[-1][1],
                "total": running[-1][name] if running else 0,
            }
        )
    _spread_labels(lines)
    every = max(1, -(-steps // CHART_TICKS))  # ceil: at most CHART_TICKS numbers
    ticks = [{"x": x(i), "hand": i} for i in range(1, len(running) + 1) if i % every == 0]
    return {
        "width": CHART_WIDTH,
        "height": CHART_HEIGHT,
        "lines": lines,
        "zero": y(0),
        "target": None if not target else y(target),
        "target_value": target,
        "left": CHART_MARGIN,
        "right": CHART_WIDTH - CHART_RIGHT,
        "low": low,
        "high": high,
        "top": y(high),
        "bottom": y(low),
        "ticks": ticks,
        "axis_y": CHART_HEIGHT - CHART_MARGIN + 24,
    }


def _spread_labels(lines: list[dict[str, Any]]) -> None:
    """Move the names at the line ends apart (close totals drew them over each other): sorted
    top to bottom, each at least CHART_LABEL_GAP below the one above, then shifted back up as
    a block if the last one fell off the chart."""
    order = sorted(lines, key=lambda line: line["label_y"])
    for above, below in itertools.pairwise(order):
        below["label_y"] = max(below["label_y"], above["label_y"] + CHART_LABEL_GAP)
    overflow = order[-1]["label_y"] - (CHART_HEIGHT - 8) if order else 0
    for line in order:
        line["label_y"] = round(max(line["label_y"] - max(overflow, 0), 16), 1)


@bp.get("/g/<game_id>")
def game(game_id: str) -> Any:
    with reading() as db:
        record = matches.get_game(db, game_id)
        state = _page_state(record)
        editable = can_edit(record)
        token = _edit_tokens().get(game_id) if editable else None
        live = seats.page_context(db, record, editable)  # QR codes, own racks, events
        club = clubs.club_of_game(db, game_id)  # a club's match links back to its club
        club_link = None if club is None else {"id": club.id, "name": club.name}
    tally = state["tally"]
    just_created = session.pop("new_game", None) == game_id
    links = {"read": url_for("pages.game", game_id=game_id, _external=True)}
    if token:
        links["edit"] = url_for("pages.claim", game_id=game_id, token=token, _external=True)
    page = render_template(
        "game.html",
        state=state,
        tally=tally,
        rows=list(zip(state["hands"], tally["running"], strict=True)),
        outcome_words=OUTCOME_WORDS,
        chart=chart(state["players"], tally["running"], state["target"]),
        winner_opens=game_type(state["game"]).winner_opens,
        editable=editable,
        links=links,
        just_created=just_created,
        live=live,
        club=club_link,
    )
    return no_store(page) if editable or live["seat"] else page


def _page_state(record: Game) -> dict[str, Any]:
    """The game as the API gives it, with its title in the page's language."""
    state = matches.game_json(record)
    state["title"] = localised_title(record.game)
    return state


def _page_setup(record_game: str, options: dict[str, Any]) -> dict[str, Any]:
    """What the check and hand pages' script needs: the game, its pieces, its recogniser."""
    rules = matches.load_rules(record_game, options)
    return {
        "game": record_game,
        "title": localised_title(record_game),
        "options": options,
        "pieces": matches.piece_names(rules),
        "kind": matches.recogniser_kind(rules),
        "hand_style": matches.hand_style(record_game),
        "from_hand": game_type(record_game).from_hand,
    }


@bp.get("/check")
def check_free() -> Any:
    """Dispute mode without a saved game: pick a game and its house options (the page applies
    a change at once; the address carries them, ``?game=remino&set=double-twelve``)."""
    games = localised_catalogue()
    chosen = request.args.get("game") or games[0]["game"]
    if chosen not in {g["game"] for g in games}:
        abort(404)
    described = next(g for g in games if g["game"] == chosen)
    options = {
        spec["name"]: request.args[spec["name"]]
        for spec in described.get("options", [])
        if request.args.get(spec["name"], "").strip()
    }
    setup = _page_setup(chosen, options)  # a bad value: the MeldcamError page (400)
    # ``?sample=1``: the page reads the sample photo of tiles at once (a newcomer's first try)
    sample = request.args.get("sample") == "1" and setup.get("kind") == "tiles"
    return render_template("check.html", setup=setup, games=games, state=None, sample=sample)


@bp.get("/g/<game_id>/check")
def check_game(game_id: str) -> str:
    with reading() as db:
        record = matches.get_game(db, game_id)
        setup = _page_setup(record.game, dict(record.options))
        setup["game_id"] = record.id
        state = _page_state(record)
    return render_template("check.html", setup=setup, games=None, state=state)


def _hand_page(
    record: Game,
    number: int | None,
    hand: Any,
    error: str | None,
    status: int = 200,
    shown: dict[str, Any] | None = None,
) -> Response:
    setup = _page_setup(record.game, dict(record.options))
    setup["game_id"] = record.id
    setup["players"] = matches.player_names(record)
    setup["hand"] = hand
    setup["number"] = number
    setup["boards"] = boards.for_page(shown)  # the photos the hand was entered from
    setup["hand_count"] = len(record.hands)  # a draft kept on the phone is for this state only
    if number is None:  # the racks the players' own phones send arrive live
        setup["live"] = seats.hand_page_live(record)
    state = _page_state(record)
    page = render_template("hand.html", setup=setup, state=state, number=number, error=error)
    return no_store((page, status))


@bp.get("/g/<game_id>/hand")
def new_hand(game_id: str) -> Response:
    with reading() as db:
        record = matches.get_game(db, game_id)
        require_edit(record)
        return _hand_page(record, None, None, None)


@bp.get("/g/<game_id>/hands/<int:number>/edit")
def edit_hand_page(game_id: str, number: int) -> Response:
    with reading() as db:
        record = matches.get_game(db, game_id)
        require_edit(record)
        saved = matches.find_hand(record, number)
        shown = saved.boards.boards if saved.boards is not None else None
        return _hand_page(record, number, saved.hand, None, shown=shown)


def _posted_hand() -> Any:
    """The form's hand (JSON), within ``webapp.bounds``: too deep or too large is a 400."""
    try:
        hand = bounds.loads(request.form.get("hand", ""))
    except bounds.NotJson:
        raise BadRequest(
            lazy_gettext("the hand was not sent: fill in the hand and confirm again")
        ) from None
    except (bounds.BadJson, bounds.TooLarge) as error:
        raise BadRequest(localise(error)) from None
    try:
        bounds.check_pieces(bounds.count_texts(hand))
    except bounds.BadJson as error:
        raise BadRequest(localise(error)) from None
    return hand


def _save_hand(game_id: str, number: int | None) -> Any:
    hand = _posted_hand()

    def work(db: DbSession, _stored_key: str | None) -> Answer:
        record = matches.get_game(db, game_id, for_update=True)
        require_edit(record)
        if number is None:
            saved = matches.add_hand(db, record, hand)
        else:
            saved = matches.edit_hand(db, record, number, hand)
        boards.attach(db, saved, boards.clean(db, record, request.form.get("boards")))
        return Answer(302, None, url_for("pages.game", game_id=game_id))

    try:
        answer = idempotency.run(idempotency.form_key(), idempotency.form_fingerprint(), work)
    except MeldcamError as error:
        with reading() as db:
            record = matches.get_game(db, game_id)
            shown = boards.clean(db, record, request.form.get("boards"))
            return _hand_page(record, number, hand, bounds.clip(localise(error)), 400, shown)
    return redirect(str(answer.location))


@bp.post("/g/<game_id>/hands")
def add_hand(game_id: str) -> Any:
    return _save_hand(game_id, None)


@bp.post("/g/<game_id>/hands/<int:number>")
def edit_hand(game_id: str, number: int) -> Any:
    return _save_hand(game_id, number)


@bp.post("/g/<game_id>/rematch")
def rematch(game_id: str) -> Any:
    """A new game with the same game, options and players (in the same seats); this browser
    gets its edit rights, as with a new game."""

    def chosen(db: DbSession) -> tuple[str, dict[str, Any], list[str]]:
        record = matches.get_game(db, game_id)
        require_edit(record)
        return record.game, dict(record.options), matches.player_names(record)

    try:
        return _start_game(chosen, club_of=game_id)
    except MeldcamError as error:
        raise BadRequest(bounds.clip(localise(error))) from None


@bp.post("/g/<game_id>/undo")
def undo(game_id: str) -> Any:
    def work(db: DbSession, _stored_key: str | None) -> Answer:
        record = matches.get_game(db, game_id, for_update=True)
        require_edit(record)
        matches.undo_last_hand(db, record)
        return Answer(302, None, url_for("pages.game", game_id=game_id))

    try:
        answer = idempotency.run(idempotency.form_key(), idempotency.form_fingerprint(), work)
    except MeldcamError as error:
        raise BadRequest(bounds.clip(localise(error))) from None
    return redirect(str(answer.location))
