"""The settings of every piece kind the app reads: the one place for their model files,
thresholds, passes, looks, label vocabularies, grouping and sure rule (``KindSettings``, run by
``vision.pipeline.Recogniser``). A new printing or piece kind is one more ``KindSettings`` here
(``dataclasses.replace`` of a kind it resembles) and its model files.

Where a number was chosen, the comment says on what. Every calibrated threshold is read from
the kind's metrics file (``models/<kind>.json``, ``vision.metrics``: ``thresholds.sure``,
``thresholds.dark_faces``, ``thresholds.sets.SET``), which ``meldcam calibrate --write`` writes,
with the command and date that chose it; the model cards render their tables from it.
"""

from __future__ import annotations

from functools import partial

from meldcam.vocabulary import OTHER_LETTERS
from vision import cards, dominoes, metrics, tiles
from vision.errors import RecogniserUnavailable
from vision.inks import InkColours
from vision.labels import CARD_JOKER, CARD_RANKS, CARD_SUITS, PIP_COUNTS, TILE_COLOURS, TILE_VALUES
from vision.settings import (
    DarkFaces,
    GreyPhotos,
    Heads,
    JoinedGlyphs,
    KindSettings,
    Looks,
    Passes,
    PipCheck,
    SecondReader,
    SetGuess,
    SetReader,
    SizedPasses,
    WholePhoto,
)

# The calibrated thresholds (models/<kind>.json, "thresholds"), read once: a name a file does
# not hold is a MetricsError naming the file.
_TILES = metrics.thresholds("tiles")
_DOMINOES = metrics.thresholds("dominoes")
_CARDS = metrics.thresholds("cards")

TILES = KindSettings(
    kind="tiles",
    detector_file="tile_detector.onnx",
    reader_file="tile_classifier.onnx",
    train_command="python -m training.train_tiles --out models",
    # Value (1-17, joker; then "none": not a tile face) and colour; a joker has no colour.
    heads=Heads(
        first=TILE_VALUES,
        second=TILE_COLOURS,
        label="{second}-{first}",
        alone=(("joker", "joker"),),
    ),
    # Score 0.4 chosen on the trained-on real photos (never on the held-out ones); the whole
    # photo only: a 640 px detector, another threshold or NMS IoU and a pass on the photo turned
    # 45 degrees read no better (docs/choices/vision.md).
    passes=Passes(score=0.4),
    # Cut at the angle estimated from the tile's edges, not the rotated box's own angle, whose
    # angles lean towards the photo's axes (slightly turned 5s and 8s read as 6s).
    looks=Looks(angle="edges"),
    drop_boxes=tiles.drop_boxes,
    none_drop=0.5,  # a box whose crop reads "not a tile face" this surely is dropped
    # a tile read whole and again on a box over part of it (a 13, and a 3): neither is sure
    repeat_doubted=0.8,
    report_floor=0.3,  # chosen on synthetic validation and the trained-on real photos
    group=tiles.group,
    # The sure rule (docs/choices/vision.md, "The sure flag"), for the shipped tile models:
    # `meldcam calibrate --kind tiles --scenes 600`, tables and racks each certifying on their
    # own, the higher threshold kept (racks'; models/tiles.json, thresholds.sure). "framed": a
    # tile touching the frame is never sure. Checked on scenes and photos that took no part
    # (docs/experiments/tiles.md, "The sure flag").
    sure_score="framed",
    sure_threshold=_TILES["sure"],
    # A tile's colour is part of its label: on a photo without colour nothing is sure.
    grey_photos=GreyPhotos(),
    turn_pairs=(("6", "9"),),
    second_reader=SecondReader(
        numerals=tuple((value, value) for value in TILE_VALUES if value.isdigit()),
        blind=("joker",),
        # a clear 12 the piece reader calls a joker (Original Rummikub's bold numerals): sure
        # on its own reading where no other numeral contains it (dev `rk5_` sure 49 -> 63 %
        # every sure one right, `rk_rbf_` unchanged; 150 scenes each of the held-out printing
        # and rack: 3 more sure, none wrong; 0.9 read the same; models/text_reader.md)
        text_alone=0.95,
        inks=InkColours(TILE_COLOURS),
    ),
)

DOMINOES = KindSettings(
    kind="dominoes",
    detector_file="domino_detector.onnx",
    reader_file="domino_reader.onnx",
    train_command="python -m training.train_pieces --kind dominoes --out models",
    # The smaller half (0-12; then "none": not a face-up domino) and the larger half (0-12).
    heads=Heads(first=PIP_COUNTS, second=PIP_COUNTS, label="{first}-{second}", pairs=True),
    # Score 0.35: chosen on synthetic validation for the shipped rotated-box detector. A second
    # pass on the photo shrunk 2x: real domino photos are mostly close-ups. Where a domino lies
    # 25 degrees or more off the photo's axes, the photo turned 45 degrees too: real thick
    # dominoes near 45 degrees are boxed short or not at all (docs/experiments/dominoes.md,
    # "Turned").
    passes=Passes(score=0.35, zoom_out=2.0, diagonal_beyond=25.0),
    looks=Looks(
        # A box whose estimated angle is more than this off its axes is read square to the box
        # too (only boxes without a rotated box of their own: a given box, a photo read whole):
        # round pips can outweigh a domino's sides (the twelve pips of a domino lying straight
        # in a chain gave an estimate of 36 degrees). Chosen on synthetic validation.
        square_beyond=15.0,
        # A rotated box whose angle is more than this off the angle estimated from its edges is
        # also read cut at the estimate: a box's angle can be wrong too (a lone domino at 45
        # degrees boxed at 21; a real one whose box and edges were 13 degrees apart, misread at
        # the box's angle). Chosen on synthetic validation (10 against 20: looks 1-3 each a
        # little better; docs/experiments/dominoes.md, "Settings chosen on synthetic validation").
        estimate_beyond=10.0,
        # A domino read less surely than this (its best half and best other half) is also read
        # half by half: a real ten whose four rows were pressed together was taken for a ring of
        # eight beside a nine (9-10 read 8-10), and reads 10 alone. On synthetic validation and
        # held-back tests the same F1 (docs/experiments/dominoes.md, "Large pips").
        halves_below=0.6,
    ),
    # A photo of one domino: that domino when "none" < 0.2 (on synthetic single-domino crops
    # "none" is almost always under 0.15, on table photos of the same shape never below 0.36).
    whole_photo=WholePhoto(none_below=0.2),
    none_drop=0.5,
    # A box is reported when its best reading among all pairs 0-12 has at least this confidence
    # (before any set limits the labels): it drops textures read as double-twelves. Chosen on
    # synthetic validation (0.2 and 0.4 did less).
    report_floor=0.3,
    # One domino found by two passes on rotated boxes sharing more than half is one domino,
    # whatever each box reads (one place, one domino: the less sure reading is a misreading of
    # it, often of a box cut short; docs/experiments/dominoes.md, "Turned").
    repeat_overlap=0.5,
    repeat_any_label=True,
    sets=dominoes.set_labels(),
    group=dominoes.group,
    # The sure rule (docs/choices/vision.md): `meldcam calibrate --kind dominoes` (2,500
    # scenes, 500 of each of looks 1-4 and 6), each look certifying on its own, the highest
    # threshold kept (look 6's, graded pips; models/dominoes.json, thresholds.sure). Checked on
    # scenes and photos that took no part (docs/experiments/dominoes.md, "The sure flag").
    # "joint", not "framed": a domino touching the photo's edge is as rarely a confident error
    # as any other.
    sure_score="joint",
    sure_threshold=_DOMINOES["sure"],
    # A blank double is never sure: the back of a domino reads as one (a face-down pile, read
    # 0-0 at 0.7-0.92; at the threshold before, 9 of 316 sure blank doubles of looks 1-4's
    # calibration were wrong, 16 of its 12,873 other sure dominoes;
    # docs/experiments/dominoes.md, "The sure flag").
    never_sure=frozenset({"0-0"}),
    # The pips counted on each half judge the label: a half counted clearly otherwise makes the
    # domino unsure (docs/experiments/dominoes.md, "Counting pips").
    pip_check=PipCheck(),
)


# Each letter set's sure threshold for its letters reader (``CARDS.set_readers``): `meldcam
# calibrate --kind cards --set SET --scenes 600` (600 look-6 scenes of decks printing that set's
# letters), checked on 300 fresh ones (`--seed 20261205 --scenes 300`), the higher of the two
# seeds' (models/cards.json, thresholds.sets.SET; docs/experiments/cards.md, "Reading the
# letters").
LETTER_SET_THRESHOLDS = {
    name[len(metrics.SET_PREFIX) :]: value
    for name, value in _CARDS.items()
    if name.startswith(metrics.SET_PREFIX)
}


def _letters_reader(sure_threshold: float) -> SetReader:
    """The reader of decks printing other index letters than English, whether an index prints
    a jack's letter weighed by the glyph reader too (the same for every set: each jack's letter
    means a jack in any deck; docs/experiments/cards.md, "Reading the letters")."""
    return SetReader(
        cards.LETTERS_READER,
        sure_threshold,
        sure_score="confidence",
        # where the glyph reader reads at least 0.8 surely: chosen on the letters benchmark's
        # 30 scenes a set, checked on 40 fresh ones; the jack's letters alone, as the real
        # photos read as another deck's showed (docs/experiments/cards.md, "Reading the letters")
        glyphs=JoinedGlyphs(cards.JACK_GLYPHS, sure=0.8),
    )


CARDS = KindSettings(
    kind="cards",
    detector_file="card_detector.onnx",
    # ... run quantised to 8-bit integers: a fifth faster, reading as well
    # (docs/experiments/cards.md, "Speed")
    quantised_detector_file="card_detector_int8.onnx",
    reader_file="card_reader.onnx",
    train_command="python -m training.train_pieces --kind cards --out models",
    # Rank (A-K, joker; then "none": not a corner index) and suit; a joker has no suit.
    heads=Heads(
        first=(*CARD_RANKS, "joker"),
        second=CARD_SUITS,
        label="{first}{second}",
        alone=(("joker", CARD_JOKER),),
    ),
    # Chosen on the synthetic validation scenes: score 0.25; tiles of the photo at its own
    # pixels up to 1600 px on the long side (small indices), and the photo shrunk 2x (a
    # close-up's indices are larger than any learned). The whole photo turned a quarter too:
    # sideways indices (court cards lying sideways on the real photos) are found that way;
    # chosen on rendered scenes and the real photos (docs/experiments/cards.md, "A quarter turn").
    # The tiles cut only as fine as the whole pass's smaller indices need (18 px across), none
    # where that enlarges the photo less than 1.15 times, overlapping by twice its longest
    # index; the zoomed-out pass only where it boxes nothing or an index 40 px long: cheaper,
    # and as well read (docs/experiments/cards.md, "Passes sized from the whole photo").
    passes=Passes(
        score=0.25,
        zoom_out=2.0,
        tile_side=1600,
        quarter_turn=True,
        sized=SizedPasses(tile_px=18.0, zoom_px=40.0, least_gain=1.15, overlap_boxes=2.0),
        zoom_further=4.0,  # one card filling the frame (docs/experiments/cards.md, "Scale")
    ),
    looks=Looks(
        # An index box whose estimated angle is more than this off its axes is also read cut
        # square to the box (as for dominoes). Chosen on synthetic validation.
        square_beyond=15.0,
        # An index is also read cut 10 degrees either way of its estimated angle (a small
        # index's angle estimate is rough; 6, 15, 20 and 30 degrees read less), and a quarter
        # turn from it (a sideways card's index whose box does not say which way it lies).
        # Chosen on synthetic validation and close-ups.
        turned=(10.0, -10.0, 90.0),
        # ... only for an index read less surely than this (as a card, or as "none"): the same
        # validation F1 as reading every index so, at half the cost.
        turned_below=0.9,
    ),
    drop_boxes=cards.drop_enclosing,
    # A dark deck (light inks on black) is read on the photo with its lightness inverted, as
    # the models learned light faces, by a reader that learned such photos, printed felts
    # inverted among them ("c14"; rendered dark English decks read inverted: F1 0.92 against
    # the English reader's 0.86-0.87), sure by its own threshold: `meldcam calibrate --kind
    # cards --renderer training.calibrate:card_dark_scene@en --scenes 300 --seed S` (rendered
    # scenes whose every deck is dark; the higher of two seeds' thresholds, checked on two more
    # seeds and certified by three pooled; with the quantised detector; models/cards.json,
    # thresholds.dark_faces; docs/experiments/cards.md, "Dark faces", "Speed").
    dark_faces=DarkFaces(reader_file=cards.DARK_READER, sure_threshold=_CARDS["dark_faces"]),
    # Red and black tell suits apart: on a photo without colour no card is sure, and it is read
    # by a reader that learned grey views too ("c10"; the English reader "c9" took every red
    # card for a black one there, and reads colour photos surer; docs/experiments/cards.md,
    # "Grey photos").
    grey_photos=GreyPhotos(reader_file=cards.GREY_READER),
    # The deck's index letters (a game option; none given: read as "en"). Decks printing other
    # letters are read by a reader fine-tuned on them (docs/experiments/cards.md, "Index
    # letters"), sure by each set's own threshold (``LETTER_SET_THRESHOLDS``).
    sets=cards.letter_sets(),
    set_readers=(
        *((name, _letters_reader(threshold)) for name, threshold in LETTER_SET_THRESHOLDS.items()),
        # a deck told to print other letters, not which: the strictest of the three
        (OTHER_LETTERS, _letters_reader(max(LETTER_SET_THRESHOLDS.values()))),
    ),
    # No letters given (``set_name`` "auto"): told from the letters the courts and aces print,
    # a glyph read at least 0.95 surely a vote; a deck whose queens' Ds show, but none of the
    # letters that say which deck, is read as one printing other letters
    # (docs/experiments/cards.md, "Telling the letters").
    set_guess=SetGuess(
        cards.GLYPH_READER,
        partial(cards.guess_letter_set, sure=0.95, votes=1.0, margin=3.0, other=OTHER_LETTERS),
    ),
    none_drop=0.5,
    report_floor=0.3,  # an index is used when read at least this surely
    # ... and a joker at least this surely: court-card art reads as a joker index
    # (docs/experiments/cards.md, "Jokers"). Chosen on 300 calibration scenes (seed 20261207).
    label_floors=((CARD_JOKER, 0.75),),
    # One index found by two passes (whole photo, tile, zoomed out) counts once, whatever it
    # reads: one place, one index.
    repeat_any_label=True,
    group=cards.group,
    # The sure rule (docs/choices/vision.md): `meldcam calibrate --kind cards --scenes 2000`,
    # each look certifying on its own, the highest threshold kept (look 5's; with 400 scenes no
    # look certified), cards matched by their index, label first, for the shipped card models
    # (models/cards.json, thresholds.sure); the score chosen on 1,000 exploration scenes
    # (docs/experiments/cards.md, "The sure flag"). The letter sets' readers certify by
    # "confidence" (by the margin, at no threshold).
    sure_score="margin_confidence",
    sure_threshold=_CARDS["sure"],
    # The rank at the top of each index read by the general recogniser too, in any deck's
    # letters: a rank it reads that the card reader does not is a disagreement (never sure;
    # both readings offered, the text's first); where it reads none, the card reader's own
    # sure rule stands (docs/experiments/cards.md, "A second reader").
    second_reader=SecondReader(
        numerals=tuple((rank, rank) for rank in CARD_RANKS),
        spellings=(("W", "J"), ("B", "J"), ("V", "J"), ("D", "Q"), ("R", "K")),
        blind=("joker",),
        find=False,
        cut="index",
        relabel=False,
        unread_stands=True,
        # ... and a clear other rank is the label (unsure): a Polish W the English reader
        # took for a 10 is offered as the jack it is
        text_decides=True,
        # a rank read this surely judges (chosen per index on rendered Polish scenes, where
        # every such disagreement was the card reader's error; a turned spade reads "R" at
        # under half)
        agree=0.9,
        reported_only=True,  # a card photo's passes box hundreds of places that are no index
    ),
)

KIND_SETTINGS: dict[str, KindSettings] = {s.kind: s for s in (TILES, DOMINOES, CARDS)}


def settings_of(kind: str) -> KindSettings:
    """The shipped settings of ``kind``; RecogniserUnavailable for a kind the app cannot read."""
    try:
        return KIND_SETTINGS[kind]
    except KeyError:
        raise RecogniserUnavailable(
            f"unknown piece kind {kind!r}: use one of {', '.join(KIND_SETTINGS)}"
        ) from None
