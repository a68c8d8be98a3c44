"""The way up of a meld settles a 6 or a 9 (a reader with a ``value_turn`` head)."""

from __future__ import annotations

import numpy as np

from vision.crops import cut_quadrant
from vision.detector import Detection
from vision.kinds import TILES
from vision.pipeline import doubt_lone_turns, settle_turns
from vision.settings import Piece, confidence
from vision.twostage import Views, _reading

VALUES = len(TILES.heads.first) + 1  # with "none"
SIX, NINE, SEVEN = (TILES.heads.first.index(v) for v in ("6", "9", "7"))


def reading_of(value_at: dict[tuple[int, int], float], first: dict[int, float]) -> Piece:
    """A piece as ``_entry`` leaves it: value x quadrant probabilities and the value head's."""
    turns = np.full((VALUES, 4), 1e-4)
    for (value, quadrant), p in value_at.items():
        turns[value, quadrant] = p
    turns /= turns.sum()
    head = np.full(VALUES, 1e-4)
    for value, p in first.items():
        head[value] = p
    head /= head.sum()
    colour = np.array([0.97, 0.01, 0.01, 0.01])
    ranked = TILES.heads.rank(head, colour)
    return Piece(
        label=ranked[0][0],
        bbox=[0.0, 0.0, 1.0, 1.0],
        p=ranked[0][1],
        score=0.9,
        first=head,
        second=colour,
        turns=turns,
    )


def test_a_meld_facing_up_makes_a_mark_less_six_a_six() -> None:
    sevens = [reading_of({(SEVEN, 0): 0.95, (SEVEN, 2): 0.05}, {SEVEN: 1.0}) for _ in range(2)]
    # unmarked: a 6 upright and a 9 upside down look alike; the value head leans to 9
    ambiguous = reading_of({(SIX, 0): 0.5, (NINE, 2): 0.5}, {SIX: 0.45, NINE: 0.55})
    loose = reading_of({(SIX, 0): 0.5, (NINE, 2): 0.5}, {SIX: 0.45, NINE: 0.55})
    pieces = [*sevens, ambiguous, loose]
    settle_turns(pieces, [[0, 1, 2]], TILES.heads, TILES.turn_pairs)
    ambiguous, loose = pieces[2:]
    assert ambiguous.label == "red-6" and ambiguous.p > 0.95  # 0.97: its colour
    assert loose.label == "red-9" and loose.p < 0.6  # in no meld: left as read
    assert [p.label for p in pieces[:2]] == ["red-7", "red-7"]


def test_a_meld_upside_down_makes_it_a_nine() -> None:
    sevens = [reading_of({(SEVEN, 2): 0.9, (SEVEN, 0): 0.1}, {SEVEN: 1.0}) for _ in range(3)]
    ambiguous = reading_of({(SIX, 0): 0.5, (NINE, 2): 0.5}, {SIX: 0.6, NINE: 0.4})
    pieces = [*sevens, ambiguous]
    settle_turns(pieces, [[0, 1, 2, 3]], TILES.heads, TILES.turn_pairs)
    ambiguous = pieces[3]
    assert ambiguous.label == "red-9"
    assert ambiguous.confidence == round(confidence(ambiguous.p, 0.9), 4)


def test_the_half_turned_view_is_brought_back_to_the_crops_frame() -> None:
    """A 5 shown turned one quarter in its crop is turned three in the crop turned half a
    turn; both views agree once aligned, and a crop cut at quadrant 0 puts its top in the
    photo's quadrant 3 (a quarter clockwise)."""
    five = TILES.heads.first.index("5")
    joint = np.zeros((2, 1, VALUES * 4))
    joint[0, 0, five * 4 + 1] = 1.0
    joint[1, 0, five * 4 + 3] = 1.0
    first = np.zeros((2, 1, VALUES))
    first[:, 0, five] = 1.0
    second = np.full((2, 1, 4), 0.25)
    detection = Detection((0.0, 0.0, 10.0, 20.0), 0.9, 0)
    turns = _reading(detection, Views((first, second, joint), [0]), 0).turns
    assert turns is not None and turns[five, 3] == 1.0 and turns.sum() == 1.0


def test_a_crop_cut_from_a_tile_lying_sideways_is_turned_a_quarter() -> None:
    assert cut_quadrant((0, 0, 20, 30), 3.0) == 0  # upright: portrait box
    assert cut_quadrant((0, 0, 30, 20), 3.0) == 1  # lying sideways: cut a quarter on


def test_a_marked_nine_keeps_its_own_way_up_beside_a_tile_lying_the_other_way() -> None:
    """Loose tiles touching in a pile are grouped as a meld but lie any way: a 9 whose mark
    shows it upside down is not made a 6 by its neighbour (seen on real photos)."""
    five = TILES.heads.first.index("5")
    neighbour = reading_of({(five, 0): 0.99}, {five: 1.0})
    marked = reading_of({(NINE, 2): 0.97, (SIX, 0): 0.01}, {NINE: 0.9, SIX: 0.1})
    pieces = [neighbour, marked]
    settle_turns(pieces, [[0, 1]], TILES.heads, TILES.turn_pairs)
    assert pieces[1].label == "red-9"


def test_a_lone_9_its_turn_head_finds_upside_down_on_a_rack_of_upright_tiles_is_never_sure():
    """Rendered racks: a lone upright 6 the turn head took for upside down read as a 9, and
    the general recogniser read a 6 one way and a 9 the other: sure, wrong."""
    upright = [reading_of({(SEVEN, 0): 0.95}, {SEVEN: 0.95}) for _ in range(5)]
    lone = reading_of({(NINE, 2): 0.9}, {NINE: 0.92})
    pairs = TILES.turn_pairs
    pieces = [*upright, lone]
    melds = [[0, 1, 2], [3, 4], [5]]
    doubted = doubt_lone_turns(pieces, melds, pairs)
    assert [p.agreed for p in doubted] == [None] * 5 + [False]
    assert doubted[5].label == lone.label  # judged only, never relabelled
    # in a meld its other tiles settle it; upright like the rest, it stands
    assert doubt_lone_turns(pieces, [[0, 1, 2], [3, 4, 5]], pairs) == pieces
    upright_nine = reading_of({(NINE, 0): 0.9}, {NINE: 0.92})
    assert doubt_lone_turns([*upright, upright_nine], melds, pairs)[5].agreed is None


def test_a_lone_9_on_a_table_whose_tiles_face_every_way_is_left_as_read():
    facing = [reading_of({(SEVEN, q): 0.95}, {SEVEN: 0.95}) for q in (0, 0, 2, 2, 1)]
    lone = reading_of({(NINE, 2): 0.9}, {NINE: 0.92})
    pieces = [*facing, lone]
    assert doubt_lone_turns(pieces, [[0, 1], [2, 3], [4], [5]], TILES.turn_pairs) == pieces


def test_a_6_and_a_9_alone_in_a_meld_do_not_settle_each_other():
    upright = [reading_of({(SEVEN, 0): 0.95}, {SEVEN: 0.95}) for _ in range(5)]
    six = reading_of({(SIX, 0): 0.9}, {SIX: 0.92})
    turned_nine = reading_of({(NINE, 2): 0.9}, {NINE: 0.92})
    pieces = [*upright, six, turned_nine]
    doubted = doubt_lone_turns(pieces, [[0, 1, 2], [3, 4], [5, 6]], TILES.turn_pairs)
    assert [p.agreed for p in doubted[5:]] == [None, False]
