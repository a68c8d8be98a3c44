"""The settings of every piece kind the app reads: the one place for their model files,
thresholds, passes, looks, label vocabularies, grouping and sure rule (``KindSettings``, run by
``vision.pipeline.Recogniser``). A new printing or piece kind is one more ``KindSettings`` here
(``dataclasses.replace`` of a kind it resembles) and its model files.

Where a number was chosen, the comment says on what; models/README.md has the measurements.
"""

from __future__ import annotations

from vision import cards, dominoes, tiles
from vision.errors import RecogniserUnavailable
from vision.labels import CARD_JOKER, CARD_RANKS, CARD_SUITS, PIP_COUNTS, TILE_COLOURS, TILE_VALUES
from vision.pipeline import Heads, KindSettings, Looks, Passes, WholePhoto

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
    # photo only (a 640 px detector, another threshold or NMS IoU, a pass on the photo turned 45
    # degrees were measured and not adopted: docs/choices/vision.md).
    passes=Passes(score=0.4),
    # Cut at the angle estimated from the tile's edges, not the rotated box's own angle: it read
    # better (models/README.md).
    looks=Looks(angle="edges"),
    drop_boxes=tiles.drop_boxes,
    none_drop=0.5,  # a box whose crop reads "not a tile face" this surely is dropped
    report_floor=0.3,  # chosen on synthetic validation and the trained-on real photos
    group=tiles.group,
    # The sure rule (docs/choices/vision.md, "The sure flag"), for the detector of round 4 and
    # the classifier r5: `meldcam calibrate --kind tiles` (600 scenes of seed 20261201; every
    # reading judged against the tile under it, partly shown tiles included; tables and racks
    # each certify on their own: tables from 0.568, racks from 0.6948): 72.2 % sure, 23 wrong
    # of 8,989, bound 0.0036. The score "framed" (a piece touching the frame is never sure)
    # was chosen before this calibration, in session 10; checked on scenes and photos that
    # took no part (models/README.md).
    sure_score="framed",
    sure_threshold=0.6948,
)

DOMINOES = KindSettings(
    kind="dominoes",
    detector_file="domino_detector.onnx",
    reader_file="domino_reader.onnx",
    train_command="python -m training.train_pieces --kind dominoes --out models",
    # The smaller half (0-12; then "none": not a face-up domino) and the larger half (0-12).
    heads=Heads(first=PIP_COUNTS, second=PIP_COUNTS, label="{first}-{second}", pairs=True),
    # Score 0.35: chosen on synthetic validation for the rotated-box detector (round 4). A second
    # pass on the photo shrunk 2x: close-ups.
    passes=Passes(score=0.35, zoom_out=2.0),
    looks=Looks(
        # A box whose estimated angle is more than this off its axes is read square to the box
        # too (only boxes without a rotated box of their own, i.e. a given box or a photo read
        # whole) (synthetic validation F1 look 1 / 2 / 3 / crops 0.858 / 0.815 / 0.766 / 0.975
        # -> 0.865 / 0.822 / 0.770 / 0.981; 8 and 25 degrees gave less): the twelve pips of a
        # domino lying straight in a chain had turned the estimate to 36 degrees.
        square_beyond=15.0,
        # A rotated box whose angle is more than this off the angle estimated from its edges is
        # also read cut at the estimate: synthetic validation F1 look 1 / 2 / 3 0.904 / 0.865 /
        # 0.836 -> 0.915 / 0.875 / 0.847 (10, 15 and 30 degrees did as well or a little less).
        estimate_beyond=20.0,
    ),
    # A photo of one domino: that domino when "none" < 0.2 (on synthetic crops "none" is < 0.15
    # for 78 of 80, on portrait table photos never below 0.36).
    whole_photo=WholePhoto(none_below=0.2),
    none_drop=0.5,
    # A box is reported when its best reading among all pairs 0-12 has at least this confidence
    # (before any set limits the labels): on the synthetic validation scenes it lifts F1 from
    # 0.791 to 0.826 (look 1) and 0.761 to 0.781 (look 2); 0.2 and 0.4 did less.
    report_floor=0.3,
    # One domino found by both passes on boxes sharing more than half is one domino (synthetic
    # validation F1 0.826 -> 0.829, 0.781 -> 0.785).
    repeat_overlap=0.5,
    sets=dominoes.set_labels(),
    group=dominoes.group,
    # The sure rule (docs/choices/vision.md): `meldcam calibrate --kind dominoes` (500 scenes
    # of seed 20261201, partly shown dominoes judged by their labels): looks 1 and 2 certify
    # "framed" from 0.563 and 0.5918, the low-camera look 3 at no threshold, so nothing is sure
    # until the reader reads such photos surely enough.
    sure_score="framed",
    sure_threshold=1.01,
)

CARDS = KindSettings(
    kind="cards",
    detector_file="card_detector.onnx",
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
    # close-up's indices are larger than any learned).
    passes=Passes(score=0.25, zoom_out=2.0, tile_side=1600),
    looks=Looks(
        # An index box whose estimated angle is more than this off its axes is also read cut
        # square to the box: with the c3 reader, synthetic validation F1 0.925 -> 0.932 (look
        # 1) and 0.903 -> 0.910 (look 2), close-ups unchanged (0.984).
        square_beyond=15.0,
        # An index is also read cut 10 degrees either way of its estimated angle: synthetic
        # validation F1 look 1 / 2 / 3 0.929 / 0.908 / 0.894 -> 0.934 / 0.916 / 0.904,
        # close-ups 0.981 both; 6, 15, 20, 30 degrees and 10 + 20 did less. And a quarter turn
        # (session 8, reader c5): a sideways card's index whose box does not say which way it
        # lies is read upright: validation F1 look 1 / 2 / 3 / 4 0.932 / 0.919 / 0.904 / 0.925
        # -> 0.937 / 0.923 / 0.903 / 0.925, close-ups 0.984 both.
        turned=(10.0, -10.0, 90.0),
        # ... only for an index read less surely than this (as a card, or as "none"): the same
        # validation F1 at 0.9 as for every index, at half the cost (0.7: 0.932 / 0.915 / 0.903).
        turned_below=0.9,
    ),
    drop_boxes=cards.drop_enclosing,
    none_drop=0.5,
    report_floor=0.3,  # an index is used when read at least this surely
    # One index found by two passes (whole photo, tile, zoomed out) counts once, whatever it
    # reads: one place, one index.
    repeat_any_label=True,
    group=cards.group,
    # The sure rule (docs/choices/vision.md): `meldcam calibrate --kind cards` (400 scenes of
    # seed 20261201, reader c6: 40.6 % sure, 3 wrong of 1,753, bound 0.0044).
    sure_score="confidence",
    sure_threshold=0.8531,
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
