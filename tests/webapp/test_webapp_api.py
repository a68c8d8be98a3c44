"""The JSON API through Flask's test client: every route and error path; errors save nothing."""

from __future__ import annotations

import io
import os
import struct
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from PIL import Image
from sqlalchemy import func, select

from scorer.games import GAME_MODULES
from webapp.db import Hand, Photo, reading

# the API's tests run on SQLite and on PostgreSQL (conftest.py)
ON_POSTGRESQL = True

RACKS_BEN_LOSES = {"winner": "Ana", "racks": {"Ana": [], "Ben": ["red-5", "blue-10"]}}


def count(app: Flask, model: type) -> int:
    with app.app_context(), reading() as session:
        return int(session.scalar(select(func.count()).select_from(model)) or 0)


def jpeg_bytes(width: int = 120, height: int = 80, orientation: int | None = None) -> bytes:
    image = Image.new("RGB", (width, height), (200, 180, 150))
    out = io.BytesIO()
    if orientation is None:
        image.save(out, "JPEG")
    else:
        exif = Image.Exif()
        exif[0x0112] = orientation
        image.save(out, "JPEG", exif=exif.tobytes())
    return out.getvalue()


def huge_png(width: int = 20000, height: int = 20000) -> bytes:
    """A tiny file that claims a huge image (a decompression bomb's header)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00" * 10))
        + chunk(b"IEND", b"")
    )


def upload(client: FlaskClient, data: bytes, kind: str = "tiles", **form: str) -> Any:
    fields: dict[str, Any] = {"kind": kind, **form}
    if data is not None:
        fields["photo"] = (io.BytesIO(data), "photo.jpg")
    return client.post("/api/recognise", data=fields, content_type="multipart/form-data")


# ---- recognise ------------------------------------------------------------------------------


def test_recognise_answers_the_recogniser_and_keeps_the_photo(
    app: Flask, client: FlaskClient, recognisers: dict[str, Any], stored_photos
):
    photo = jpeg_bytes(120, 80)
    response = upload(client, photo)
    assert response.status_code == 200
    body = response.json
    assert [p["label"] for p in body["pieces"]] == ["red-1", "red-2", "red-8"]
    assert body["melds"] == [[0, 1, 2]]
    assert body["kind"] == "tiles"
    assert (body["photo"]["width"], body["photo"]["height"]) == (120, 80)
    ((filename, kept),) = stored_photos(app)  # re-encoded without metadata (test_hostile)
    with Image.open(io.BytesIO(kept)) as image:
        assert (image.format, image.size) == ("JPEG", (120, 80))
    assert recognisers["tiles"].seen == [kept]  # the recogniser reads what is kept
    assert len(Path(filename).stem) == 32 and filename != "photo.jpg"  # random, not the upload's
    served = client.get(body["photo"]["url"])
    assert served.status_code == 200 and served.data == kept
    assert count(app, Photo) == 1


def test_recognise_reports_the_upright_size_of_a_rotated_photo(client: FlaskClient):
    response = upload(client, jpeg_bytes(120, 80, orientation=6))  # EXIF: rotate 90 degrees
    assert response.status_code == 200
    assert (response.json["photo"]["width"], response.json["photo"]["height"]) == (80, 120)


def test_recognise_attaches_the_photo_to_a_game(
    app: Flask, client: FlaskClient, make_game, stored_photos
):
    game = make_game()
    viewer = upload(client, jpeg_bytes(), game=game["id"])  # read link only: kept, not attached
    assert viewer.status_code == 200
    with app.app_context(), reading() as session:
        assert session.scalars(select(Photo)).one().game_id is None
    player = client.post(
        "/api/recognise",
        data={"kind": "tiles", "game": game["id"], "photo": (io.BytesIO(jpeg_bytes()), "p.jpg")},
        headers={"X-Edit-Token": game["edit_token"]},
    )
    assert player.status_code == 200
    with app.app_context(), reading() as session:
        attached = session.scalars(select(Photo).where(Photo.game_id == game["id"])).all()
        assert [p.id for p in attached] == [player.json["photo"]["id"]]
    response = upload(client, jpeg_bytes(), game="nosuchgame")
    assert response.status_code == 404
    assert count(app, Photo) == 2
    assert len(stored_photos(app)) == 2  # no orphan bytes


@pytest.mark.parametrize(
    ("data", "kind", "message"),
    [
        (b"", "tiles", "empty"),
        (b"hello, not a photo at all", "tiles", "not a photo"),
        (jpeg_bytes(400, 300)[:600], "tiles", "damaged or cut off"),
        (huge_png(), "tiles", "too large"),
        (jpeg_bytes(), "marbles", "kind must be one of"),
    ],
    ids=["empty", "not-an-image", "truncated", "decompression-bomb", "bad-kind"],
)
def test_recognise_rejects_bad_uploads(
    app: Flask, client: FlaskClient, data: bytes, kind: str, message: str
):
    response = upload(client, data, kind=kind)
    assert response.status_code == 400
    assert message in response.json["error"]
    assert count(app, Photo) == 0


def test_recognise_rejects_gif_and_missing_photo(client: FlaskClient):

    gif = io.BytesIO()
    Image.new("P", (10, 10)).save(gif, "GIF")
    response = upload(client, gif.getvalue())
    assert response.status_code == 400 and "JPEG, PNG or WebP" in response.json["error"]
    response = client.post("/api/recognise", data={"kind": "tiles"})
    assert response.status_code == 400 and "photo" in response.json["error"]


def test_upload_over_the_limit_is_413_with_a_message(tmp_path):
    from webapp import create_app

    small = create_app({"INSTANCE_PATH": str(tmp_path / "i"), "MAX_CONTENT_LENGTH": 1024})
    client = small.test_client()
    response = upload(client, b"x" * 5000)
    assert response.status_code == 413
    assert "too large" in response.json["error"]
    page = client.post("/games", data={"blob": "x" * 5000})
    assert page.status_code == 413
    assert "too large" in page.get_data(as_text=True)


def test_recognise_bad_image_error_from_the_recogniser_is_400(app: Flask, client: FlaskClient):
    from webapp.photos import PhotoError

    class Refuses:
        def recognise(
            self,
            image: bytes,
            channels: str = "rgb",
            set_name: str | None = None,
            untold: str | None = None,
        ) -> dict[str, Any]:
            raise PhotoError("the recogniser could not read this photo")

    app.config["RECOGNISER_FACTORY"] = lambda kind: Refuses()
    response = upload(client, jpeg_bytes())
    assert response.status_code == 400
    assert "could not read" in response.json["error"]
    assert count(app, Photo) == 0


class SetAwareReader:
    """A stand-in for the domino or card reader: records the keyword arguments of every call;
    refuses the sets in ``unknown`` as ``vision.errors.UnknownSet`` does."""

    def __init__(self, unknown: tuple[str | None, ...] = ()) -> None:
        self.calls: list[dict[str, Any]] = []
        self.unknown = unknown

    def recognise(
        self,
        image: bytes,
        channels: str = "rgb",
        set_name: str | None = None,
        untold: str | None = None,
    ):
        from vision.errors import UnknownSet

        self.calls.append({} if set_name is None else {"set_name": set_name})
        if set_name in self.unknown:
            raise UnknownSet(f"unknown domino set {set_name!r}")
        piece = {"label": "3-8", "bbox": [5, 5, 60, 30], "confidence": 0.9, "alternatives": []}
        return {"kind": "dominoes", "pieces": [piece], "melds": [[0]], "ms": 3}


@pytest.mark.parametrize(
    ("game", "options", "kind", "expected"),
    [
        ("remino", {"set": "double-nine"}, "dominoes", "double-nine"),
        ("remino", {}, "dominoes", "double-nine"),
        ("remino", {"set": "2x-double-six"}, "dominoes", "double-six"),
        ("remino", {"set": "double-twelve"}, "dominoes", "double-twelve"),
        ("domino-gin", {}, "dominoes", "double-six"),
        ("domino-gin", {"set": "double-nine"}, "dominoes", "double-nine"),
        ("gin", {}, "cards", "auto"),  # the deck's index letters, told from each photo
        ("gin", {"index_letters": "JQKA"}, "cards", "en"),
        ("gin", {"index_letters": "WDKA"}, "cards", "pl"),
        ("gin", {"index_letters": "VDRA"}, "cards", "fr"),
        ("gin", {"index_letters": "from the photo"}, "cards", "auto"),  # told from each photo
    ],
)
def test_pieces_are_read_for_the_games_set(
    app: Flask,
    client: FlaskClient,
    make_game,
    game: str,
    options: dict[str, Any],
    kind: str,
    expected: str,
):
    reader = SetAwareReader()
    app.config["RECOGNISER_FACTORY"] = lambda kind: reader
    made = make_game(game, options=options)
    headers = {"X-Edit-Token": made["edit_token"]}
    fields = {"kind": kind, "game": made["id"], "photo": (io.BytesIO(jpeg_bytes()), "p.jpg")}
    response = client.post("/api/recognise", data=fields, headers=headers)
    assert response.status_code == 200, response.json
    assert response.json["pieces"][0]["label"] == "3-8"
    viewer = upload(client, jpeg_bytes(), kind=kind, game=made["id"])  # read link only
    assert viewer.status_code == 200
    assert reader.calls == [{"set_name": expected}] * 2


class TellingReader(SetAwareReader):
    """A card reader told a deck only by the photos in ``tells`` (by call, "auto" readings);
    a photo that tells none is read as ``untold`` where given, as ``Recogniser`` does."""

    def __init__(self, tells: list[str | None]) -> None:
        super().__init__()
        self.tells = tells

    def recognise(
        self,
        image: bytes,
        channels: str = "rgb",
        set_name: str | None = None,
        untold: str | None = None,
    ):
        result = super().recognise(image, channels, set_name)
        if untold is not None:
            self.calls[-1]["untold"] = untold
        if set_name == "auto":
            told = self.tells.pop(0)
            result["set"] = told or untold
            if told is None and untold is not None:
                result["set_from"] = "untold"
        return result


def _gin_photo_reading(client: FlaskClient, made: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    """Sends a card photo to the game ``made`` and returns the reading (200 asserted)."""
    headers = {"X-Edit-Token": made["edit_token"]}

    def read() -> dict[str, Any]:
        fields = {"kind": "cards", "game": made["id"], "photo": (io.BytesIO(jpeg_bytes()), "p.jpg")}
        response = client.post("/api/recognise", data=fields, headers=headers)
        assert response.status_code == 200, response.json
        return response.json

    return read


def test_a_games_photo_that_tells_no_deck_is_read_for_the_deck_its_photos_showed(
    app: Flask, client: FlaskClient, make_game
):
    """Gin's default letters are told from each photo; a photo showing none of the deck's own
    letters (a Polish hand without a jack) is read for the deck the game's earlier photos were
    told (in the same reading: its boxes read by that deck's reader), never for one such a
    reading itself gave, and not when they disagree."""
    reader = TellingReader(["pl", None, None, "en", None, "en", None])
    app.config["RECOGNISER_FACTORY"] = lambda kind: reader
    read = _gin_photo_reading(client, make_game("gin"))

    first = read()
    assert (first["set"], first["set_letters"]) == ("pl", "WDKA")
    assert "set_from" not in first and reader.calls == [{"set_name": "auto"}]
    second = read()
    assert (second["set"], second["set_from"], second["set_letters"]) == ("pl", "game", "WDKA")
    assert reader.calls[1:] == [{"set_name": "auto", "untold": "pl"}]  # one reading
    assert read()["set"] == "pl"  # the photo read as the game's deck does not count: one tell
    assert read()["set"] == "en"  # told English: one tell each, none twice the other's
    assert read()["set"] is None and reader.calls[-1] == {"set_name": "auto"}
    assert read()["set"] == "en"  # English now told twice against once: an untold photo
    assert read()["set"] is None and reader.calls[-1] == {"set_name": "auto"}  # reads as English


def test_a_deck_told_only_to_print_other_letters_backs_the_deck_its_photos_name(
    app: Flask, client: FlaskClient, make_game
):
    """A photo showing a queen's D but no letter that says which deck ("other": some deck with
    other letters than J Q K A) is shown so, and a game's photos that tell it read the game's
    untold photos so; a photo naming the deck (two Ws) then settles which, the "other" photos
    backing it against one told English."""
    reader = TellingReader(["other", "other", None, "en", "pl", None])
    app.config["RECOGNISER_FACTORY"] = lambda kind: reader
    read = _gin_photo_reading(client, make_game("gin"))

    first = read()
    assert first["set"] == "other" and "set_letters" not in first and "set_from" not in first
    assert read()["set"] == "other"
    untold = read()  # told nothing: read as the deck the game's photos showed
    assert (untold["set"], untold["set_from"]) == ("other", "game")
    assert reader.calls[-1] == {"set_name": "auto", "untold": "other"}
    assert read()["set"] == "en"  # two photos of other letters against one English
    assert read()["set"] == "pl"  # Polish once, backed by the two "other": Polish, not English
    last = read()
    assert (last["set"], last["set_from"], last["set_letters"]) == ("pl", "game", "WDKA")


def test_dominoes_without_a_game_are_read_with_no_set(app: Flask, client: FlaskClient):
    reader = SetAwareReader()
    app.config["RECOGNISER_FACTORY"] = lambda kind: reader
    response = upload(client, jpeg_bytes(), kind="dominoes")
    assert response.status_code == 200
    assert reader.calls == [{}]


def test_cards_without_a_game_are_read_for_the_letters_they_show(app: Flask, client: FlaskClient):
    reader = TellingReader(["de"])
    app.config["RECOGNISER_FACTORY"] = lambda kind: reader
    response = upload(client, jpeg_bytes(), kind="cards")
    assert response.status_code == 200
    assert reader.calls == [{"set_name": "auto"}]
    assert (response.json["set"], response.json["set_letters"]) == ("de", "BDKA")


def test_tiles_get_no_set(app: Flask, client: FlaskClient, make_game, recognisers):
    """Tiles never get ``set_name``, nor do a domino game's cards, even from a reader that would
    take it; a domino reader that does not take it (the plain stand-in) still reads a domino
    game's photo."""
    plain_factory = app.config["RECOGNISER_FACTORY"]
    reader = SetAwareReader()
    app.config["RECOGNISER_FACTORY"] = lambda kind: reader
    for game, kind in (("rummikub", "tiles"), ("remino", "cards"), ("remino", "tiles")):
        made = make_game(game)
        assert upload(client, jpeg_bytes(), kind=kind, game=made["id"]).status_code == 200
    assert reader.calls == [{}] * 3
    app.config["RECOGNISER_FACTORY"] = plain_factory  # recognise(image) only
    made = make_game("remino")
    response = upload(client, jpeg_bytes(), kind="dominoes", game=made["id"])
    assert response.status_code == 200, response.json
    assert [p["label"] for p in response.json["pieces"]] == ["red-1", "red-2", "red-8"]
    assert len(recognisers["dominoes"].seen) == 1


def test_a_set_the_reader_does_not_know_is_read_with_no_set(
    app: Flask, client: FlaskClient, make_game
):
    reader = SetAwareReader(unknown=("double-nine",))
    app.config["RECOGNISER_FACTORY"] = lambda kind: reader
    made = make_game("remino", options={"set": "double-nine"})
    response = upload(client, jpeg_bytes(), kind="dominoes", game=made["id"])
    assert response.status_code == 200, response.json
    assert response.json["pieces"][0]["label"] == "3-8"
    assert reader.calls == [{"set_name": "double-nine"}, {}]
    assert count(app, Photo) == 1


def test_a_reader_that_knows_no_set_at_all_is_503_not_500(
    app: Flask, client: FlaskClient, make_game
):
    reader = SetAwareReader(unknown=("double-six", None))
    app.config["RECOGNISER_FACTORY"] = lambda kind: reader
    made = make_game("domino-gin")
    response = upload(client, jpeg_bytes(), kind="dominoes", game=made["id"])
    assert response.status_code == 503
    assert "tapping" in response.json["error"]
    assert reader.calls == [{"set_name": "double-six"}, {}]
    assert count(app, Photo) == 0


def test_the_real_readers_take_every_argument_of_the_protocol():
    """``vision.jobs.read`` passes ``set_name`` and ``untold`` to every recogniser (no model is
    loaded): the shipped one takes what the protocol (``vision.api.Recogniser``) names."""
    import inspect

    from vision.api import Recogniser as Protocol
    from vision.pipeline import Recogniser
    from vision.recognisers import DominoRecogniser

    wanted = list(inspect.signature(Protocol.recognise).parameters)
    assert wanted == ["self", "image", "channels", "set_name", "untold"]
    for recogniser in (Recogniser, DominoRecogniser):
        assert list(inspect.signature(recogniser.recognise).parameters) == wanted


def test_an_unknown_game_is_404_before_reading(app: Flask, client: FlaskClient):
    reader = SetAwareReader()
    app.config["RECOGNISER_FACTORY"] = lambda kind: reader
    response = upload(client, jpeg_bytes(), kind="dominoes", game="nosuchgame")
    assert response.status_code == 404
    assert reader.calls == []


def test_unknown_photo_is_404(client: FlaskClient):
    assert client.get("/api/photos/abc").status_code == 404
    assert client.get("/api/photos/" + "a" * 40).status_code == 404


# ---- check, table, score ---------------------------------------------------------------------


def test_check_judges_each_meld_and_the_opening(client: FlaskClient):
    response = client.post(
        "/api/check",
        json={
            "game": "rummikub",
            "options": {},
            "melds": [["red-10", "red-11", "red-12"], ["blue-5", "red-5", "red-6"]],
            "opening": True,
        },
    )
    assert response.status_code == 200
    body = response.json
    assert body["valid"] is False
    assert body["melds"][0]["valid"] is True and body["melds"][0]["value"] == 33
    assert body["melds"][1]["valid"] is False and body["melds"][1]["reason"]
    assert body["opening"]["threshold"] == 30


def test_check_uses_the_options(client: FlaskClient):
    melds = [["red-10", "red-11", "red-12"]]
    low = client.post("/api/check", json={"game": "rummikub", "melds": melds, "opening": True})
    high = client.post(
        "/api/check",
        json={"game": "rummikub", "options": {"opening": 50}, "melds": melds, "opening": True},
    )
    assert low.json["opening"]["valid"] is True
    assert high.json["opening"]["valid"] is False and high.json["opening"]["threshold"] == 50


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"game": "rummikub"}, 400, "melds"),
        ({"game": "rummikub", "melds": "red-1"}, 400, "list of melds"),
        ({"game": "rummikub", "melds": [[1, 2, 3]]}, 400, "piece names"),
        ({"game": "rummikub", "melds": [["purple-3"]]}, 400, "purple"),
        ({"game": "rummikub", "melds": [["red-15", "red-16", "red-17"]]}, 400, "13"),
        ({"game": "rummikub", "melds": []}, 400, "at least one meld"),
        ({"game": "chess", "melds": [["red-1"]]}, 400, "unknown game"),
        ({"melds": [["red-1"]]}, 400, "game"),
        ({"game": 7, "melds": [["red-1"]]}, 400, "game"),
        ({"game": "rummikub", "options": {"jokers": 3}, "melds": [["red-1"]]}, 400, "jokers"),
        ({"game": "rummikub", "options": {"colour": 1}, "melds": [["red-1"]]}, 400, "colour"),
        ({"game": "rummikub", "options": [1], "melds": [["red-1"]]}, 400, "options"),
        ({"game": "rummikub", "melds": [["red-1"]], "opening": "yes"}, 400, "opening"),
    ],
)
def test_check_errors_are_4xx_with_a_message(
    client: FlaskClient, body: dict[str, Any], status: int, message: str
):
    response = client.post("/api/check", json=body)
    assert response.status_code == status
    assert message in response.json["error"]


def test_non_json_bodies_are_400(client: FlaskClient):
    for path in ("/api/check", "/api/table", "/api/score", "/api/games", "/api/pieces"):
        response = client.post(path, data="melds=1", content_type="text/plain")
        assert response.status_code == 400, path
        assert "JSON object" in response.json["error"]
        assert client.post(path, json=[1, 2]).status_code == 400


def test_table_arranges_or_explains(client: FlaskClient):
    ok = client.post(
        "/api/table", json={"game": "rummikub", "pieces": ["red-1", "red-2", "red-3", "joker"]}
    )
    assert ok.status_code == 200 and ok.json["valid"] is True
    assert sorted(p for m in ok.json["melds"] for p in m) == ["joker", "red-1", "red-2", "red-3"]
    bad = client.post("/api/table", json={"game": "rummikub", "pieces": ["red-1", "blue-7"]})
    assert bad.status_code == 200 and bad.json["valid"] is False
    not_a_list = client.post("/api/table", json={"game": "rummikub", "pieces": "red-1"})
    assert not_a_list.status_code == 400
    three = {"game": "rummikub", "pieces": ["red-1", "red-1", "red-1"]}
    response = client.post("/api/table", json=three)
    assert response.status_code == 400 and "red-1" in response.json["error"]


def test_score_scores_a_hand(client: FlaskClient):
    hand = {
        "players": ["Ana", "Ben", "Cy"],
        "winner": "Ana",
        "racks": {"Ana": [], "Ben": ["red-5", "blue-10"], "Cy": ["joker"]},
    }
    response = client.post("/api/score", json={"game": "rummikub", "hand": hand})
    assert response.status_code == 200
    assert response.json["deltas"] == {"Ana": 45, "Ben": -15, "Cy": -30}


GIN_A = ["AH", "2H", "3H", "4S", "5S", "6S", "7D", "8D", "9D", "KC"]
GIN_B = ["AC", "2C", "3C", "4C", "5D", "6D", "7H", "8H", "9H", "QS"]


@pytest.mark.parametrize(
    ("game", "hand", "message"),
    [
        ("gin", {"players": ["A", "B"], "knocker": "A", "hands": {"A": GIN_A, "B": GIN_A}}, "AH"),
        ("gin", {"players": ["A", "B"], "knocker": "A", "hands": {"A": GIN_A[:9], "B": GIN_B}}, ""),
        ("gin", {"players": ["A", "B"], "knocker": "Z", "hands": {"A": GIN_A, "B": GIN_B}}, ""),
        ("rummikub", {"players": ["A", "B"], "winner": "A", "racks": {"A": [], "B": 5}}, ""),
        ("rummikub", {"players": ["A", "B"], "winner": "A", "racks": "none"}, ""),
        ("rummikub", [1, 2], "JSON object"),
    ],
    ids=[
        "card-twice",
        "wrong-hand-size",
        "unknown-knocker",
        "rack-not-list",
        "racks-not-map",
        "hand-not-object",
    ],
)
def test_impossible_hands_are_400(client: FlaskClient, game: str, hand: Any, message: str):
    response = client.post("/api/score", json={"game": game, "hand": hand})
    assert response.status_code == 400
    assert message in response.json["error"]


def test_score_needs_a_hand(client: FlaskClient):
    response = client.post("/api/score", json={"game": "rummikub"})
    assert response.status_code == 400 and "hand" in response.json["error"]


def test_catalogue_and_pieces(client: FlaskClient):
    games = {g["game"]: g for g in client.get("/api/catalogue").json}
    assert set(games) == set(GAME_MODULES)
    assert games["domino-gin"]["players"] == [2, 2]
    response = client.post("/api/pieces", json={"game": "rummikub", "options": {"jokers": 0}})
    assert response.json["kind"] == "tiles"
    pieces = response.json["pieces"]
    assert len(pieces) == 52 and pieces[0] == "red-1" and "joker" not in pieces
    gin = client.post("/api/pieces", json={"game": "gin"}).json
    assert gin["kind"] == "cards" and len(gin["pieces"]) == 52 and gin["pieces"][0] == "AC"
    remik = client.post("/api/pieces", json={"game": "remik", "options": {"numbers": 17}}).json
    assert "black-17" in remik["pieces"]


# ---- games and hands ---------------------------------------------------------------------------


def test_create_game_returns_links_and_token(client: FlaskClient, make_game):
    game = make_game(players=["Ana", "Ben", "Cy"])
    assert len(game["id"]) >= 16 and len(game["edit_token"]) >= 24
    assert game["links"]["read"].endswith(f"/g/{game['id']}")
    assert game["edit_token"] in game["links"]["edit"]
    assert game["players"] == ["Ana", "Ben", "Cy"]
    assert game["target"] == 200
    assert game["tally"]["totals"] == {"Ana": 0, "Ben": 0, "Cy": 0}
    other = make_game()
    assert other["id"] != game["id"] and other["edit_token"] != game["edit_token"]
    fetched = client.get(f"/api/games/{game['id']}").json
    assert "edit_token" not in fetched and fetched["next_dealer"] == "Ana"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"game": "rummikub", "players": ["Ana"]}, "2 to 4 players"),
        ({"game": "rummikub", "players": ["A", "B", "C", "D", "E"]}, "2 to 4 players"),
        ({"game": "domino-gin", "players": ["A", "B", "C"]}, "exactly 2"),
        ({"game": "rummikub", "players": ["Ana", "ana"]}, "two players are called"),
        ({"game": "rummikub", "players": "Ana, Ben"}, "list of names"),
        ({"game": "rummikub", "players": ["Ana", "B" * 41]}, "at most 40"),
        ({"game": "rummikub", "options": {"target": 0}, "players": ["A", "B"]}, "target"),
        ({"game": "snap", "players": ["A", "B"]}, "unknown game"),
        ({"players": ["A", "B"]}, "game"),
    ],
)
def test_create_game_errors_save_nothing(app: Flask, client: FlaskClient, body, message):
    response = client.post("/api/games", json=body)
    assert response.status_code == 400
    assert message in response.json["error"]
    from webapp.db import Game

    assert count(app, Game) == 0


def test_unknown_game_is_404(client: FlaskClient):
    for path in ("/api/games/nope", "/api/games/nope/export.csv", "/api/games/nope/export.json"):
        response = client.get(path)
        assert response.status_code == 404 and "no game" in response.json["error"]
    response = client.post("/api/games/nope/hands", json={}, headers={"X-Edit-Token": "x"})
    assert response.status_code == 404


def test_hands_need_the_edit_token(app: Flask, client: FlaskClient, make_game):
    game = make_game()
    path = f"/api/games/{game['id']}/hands"
    assert client.post(path, json={"hand": RACKS_BEN_LOSES}).status_code == 403
    wrong = client.post(path, json={"hand": RACKS_BEN_LOSES}, headers={"X-Edit-Token": "guess"})
    assert wrong.status_code == 403 and "edit link" in wrong.json["error"]
    other = make_game()
    stolen = {"X-Edit-Token": other["edit_token"]}
    assert client.post(path, json={"hand": RACKS_BEN_LOSES}, headers=stolen).status_code == 403
    assert client.delete(path + "/last", headers=stolen).status_code == 403
    assert client.put(path + "/1", json={"hand": RACKS_BEN_LOSES}).status_code == 403
    assert count(app, Hand) == 0


def test_hand_is_scored_saved_and_tallied(client: FlaskClient, make_game):
    game = make_game()
    token = {"X-Edit-Token": game["edit_token"]}
    path = f"/api/games/{game['id']}/hands"
    response = client.post(path, json={"hand": RACKS_BEN_LOSES}, headers=token)
    assert response.status_code == 201
    assert response.json["number"] == 1
    state = response.json["game"]
    assert state["hands"][0]["deltas"] == {"Ana": 15, "Ben": -15}
    assert state["hands"][0]["result"]["outcome"] == "out"
    assert state["tally"]["totals"] == {"Ana": 15, "Ben": -15}
    assert state["next_dealer"] == "Ben"
    # the hand itself may be posted without the {"hand": ...} wrapper
    bare = {"winner": "Ben", "racks": {"Ana": ["black-13"], "Ben": []}}
    response = client.post(path, json=bare, headers=token)
    assert response.status_code == 201
    assert response.json["game"]["tally"]["totals"] == {"Ana": 2, "Ben": -2}
    assert response.json["game"]["tally"]["running"] == [
        {"Ana": 15, "Ben": -15},
        {"Ana": 2, "Ben": -2},
    ]


def test_impossible_hand_saves_nothing(app: Flask, client: FlaskClient, make_game):
    game = make_game()
    token = {"X-Edit-Token": game["edit_token"]}
    path = f"/api/games/{game['id']}/hands"
    bad_hands = [
        {"winner": "Ana", "racks": {"Ana": [], "Ben": ["red-5", "red-5", "red-5"]}},
        {"winner": "Zed", "racks": {"Ana": [], "Ben": []}},
        {"players": ["Ana", "Cy"], "winner": "Ana", "racks": {"Ana": [], "Cy": []}},
        {"winner": "Ana", "racks": {"Ana": [], "Ben": ["gold-5"]}},
        "a string",
    ]
    for hand in bad_hands:
        response = client.post(path, json={"hand": hand}, headers=token)
        assert response.status_code == 400, hand
        assert response.json["error"]
    assert count(app, Hand) == 0


def test_no_hand_after_the_match_has_ended(app: Flask, client: FlaskClient, make_game):
    game = make_game(options={"target": 20})
    token = {"X-Edit-Token": game["edit_token"]}
    path = f"/api/games/{game['id']}/hands"
    win = {"winner": "Ana", "racks": {"Ana": [], "Ben": ["red-12", "red-13"]}}
    state = client.post(path, json={"hand": win}, headers=token).json["game"]
    assert state["tally"]["finished"] is True and state["tally"]["winner"] == "Ana"
    assert state["next_dealer"] is None
    response = client.post(path, json={"hand": win}, headers=token)
    assert response.status_code == 400 and "ended" in response.json["error"]
    assert count(app, Hand) == 1


def test_undo_and_edit(app: Flask, client: FlaskClient, make_game):
    game = make_game()
    token = {"X-Edit-Token": game["edit_token"]}
    path = f"/api/games/{game['id']}/hands"
    assert client.delete(path + "/last", headers=token).status_code == 400  # nothing to undo
    client.post(path, json={"hand": RACKS_BEN_LOSES}, headers=token)
    second = {"winner": "Ben", "racks": {"Ana": ["black-13"], "Ben": []}}
    client.post(path, json={"hand": second}, headers=token)
    # edit hand 1: later running totals recompute
    first = {"winner": "Ana", "racks": {"Ana": [], "Ben": ["joker"]}}
    edited = client.put(path + "/1", json={"hand": first}, headers=token)
    assert edited.status_code == 200
    assert edited.json["game"]["tally"]["running"] == [
        {"Ana": 30, "Ben": -30},
        {"Ana": 17, "Ben": -17},
    ]
    assert edited.json["game"]["hands"][0]["updated_at"] is not None
    bad = client.put(path + "/1", json={"hand": {"winner": "Zed"}}, headers=token)
    assert bad.status_code == 400
    assert client.put(path + "/9", json={"hand": first}, headers=token).status_code == 404
    undone = client.delete(path + "/last", headers=token)
    assert undone.status_code == 200 and undone.json["undone"] == 2
    assert undone.json["game"]["tally"]["totals"] == {"Ana": 30, "Ben": -30}
    assert count(app, Hand) == 1


def test_exports(client: FlaskClient, make_game):
    game = make_game()
    token = {"X-Edit-Token": game["edit_token"]}
    path = f"/api/games/{game['id']}"
    client.post(path + "/hands", json={"hand": RACKS_BEN_LOSES}, headers=token)
    csv = client.get(path + "/export.csv")
    assert csv.status_code == 200 and csv.mimetype == "text/csv"
    assert "attachment" in csv.headers["Content-Disposition"]
    lines = csv.get_data(as_text=True).splitlines()
    assert lines == ["hand,outcome,winner,Ana,Ben,Ana total,Ben total", "1,out,Ana,15,-15,15,-15"]
    exported = client.get(path + "/export.json")
    assert exported.status_code == 200 and exported.json["hands"][0]["deltas"]["Ana"] == 15
    assert "edit_token" not in exported.json


def test_gin_game_through_the_api(client: FlaskClient, make_game):
    game = make_game(game="gin", players=["A", "B"])
    token = {"X-Edit-Token": game["edit_token"]}
    hand = {"knocker": "A", "hands": {"A": GIN_A, "B": GIN_B}}
    response = client.post(f"/api/games/{game['id']}/hands", json={"hand": hand}, headers=token)
    assert response.status_code == 201
    result = response.json["game"]["hands"][0]["result"]
    assert result["outcome"] in {"knock", "undercut", "gin"}
    assert sum(response.json["game"]["tally"]["totals"].values()) == sum(result["deltas"].values())


def test_api_errors_for_wrong_methods_and_paths_are_json(client: FlaskClient):
    response = client.get("/api/check")
    assert response.status_code == 405 and "error" in response.json
    response = client.get("/api/nothing-here")
    assert response.status_code == 404 and "error" in response.json


def test_recognise_kind_without_a_model_is_503(app: Flask, monkeypatch):
    """The default path through ``vision.api``: a kind it cannot read yet answers 503."""
    from vision import api as vision_api
    from vision.errors import RecogniserUnavailable

    def get_recogniser(kind: str) -> Any:
        raise RecogniserUnavailable(f"reading {kind} from photos is not available yet")

    monkeypatch.setattr(vision_api, "get_recogniser", get_recogniser)
    app.config["RECOGNISER_FACTORY"] = None
    response = upload(app.test_client(), jpeg_bytes(), kind="dominoes")
    assert response.status_code == 503
    assert "dominoes" in response.json["error"] and "tapping" in response.json["error"]
    assert count(app, Photo) == 0


REALDATA = next(
    (
        p
        for p in (
            Path(__file__).resolve().parents[3] / "shared/realdata/dev",
            Path("/work/shared/realdata/dev"),
        )
        if p.is_dir()
    ),
    None,
)


TILE_MODELS = [
    Path(__file__).resolve().parents[2] / "models" / name
    for name in ("tile_detector.onnx", "tile_classifier.onnx")
]


@pytest.mark.slow
@pytest.mark.skipif(
    os.environ.get("CI") != "true" and REALDATA is None,
    reason="real photos (../shared/realdata/dev) missing",
)
@pytest.mark.skipif(
    os.environ.get("CI") != "true" and not all(m.exists() for m in TILE_MODELS),
    reason="tile models missing: python -m training.train_tiles --out models",
)
def test_real_recogniser_reads_a_real_photo_through_the_api(app: Flask):
    """With the shipped tile model (no stand-in, never skipped in CI): boxes come back inside the
    photo, labels are tile names, and most of the photo's 8 labelled tiles are found."""
    assert REALDATA is not None, "real photos (../shared/realdata/dev) missing"
    app.config["RECOGNISER_FACTORY"] = None
    photo = (REALDATA / "rk_rbf_rummy4-13.jpg").read_bytes()
    response = upload(app.test_client(), photo)
    assert response.status_code == 200, response.json
    body = response.json
    width, height = body["photo"]["width"], body["photo"]["height"]
    assert body["pieces"], "the model found no tile on a photo of 8 tiles"
    for piece in body["pieces"]:
        x1, y1, x2, y2 = piece["bbox"]
        assert 0 <= x1 < x2 <= width + 1 and 0 <= y1 < y2 <= height + 1
        assert piece["label"] == "joker" or piece["label"].split("-")[0] in {
            "red",
            "orange",
            "blue",
            "black",
        }
    # loose on purpose: the models may be retrained; 8 tiles lie on the photo
    assert 4 <= len(body["pieces"]) <= 12, [p["label"] for p in body["pieces"]]
    assert sum(len(meld) for meld in body["melds"]) <= len(body["pieces"])
    assert count(app, Photo) == 1


def test_a_colliding_write_is_409(client: FlaskClient, make_game, monkeypatch):
    from sqlalchemy.exc import IntegrityError

    from webapp import matches

    def collide(*args: Any) -> Any:
        raise IntegrityError("INSERT INTO hands", {}, Exception("UNIQUE constraint failed"))

    game = make_game()
    monkeypatch.setattr(matches, "add_hand", collide)
    response = client.post(
        f"/api/games/{game['id']}/hands",
        json={"hand": RACKS_BEN_LOSES},
        headers={"X-Edit-Token": game["edit_token"]},
    )
    assert response.status_code == 409 and "reload" in response.json["error"]


def test_hand_numbers_are_unique_per_game(app: Flask, client: FlaskClient, make_game):
    from sqlalchemy.exc import IntegrityError

    from webapp.db import transaction

    game = make_game()
    with app.app_context(), pytest.raises(IntegrityError), transaction() as session:
        for _ in range(2):
            session.add(Hand(game_id=game["id"], number=1, hand={}, result={}, deltas={}))
    assert count(app, Hand) == 0
