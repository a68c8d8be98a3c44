"""The CLI contract of issue 2: JSON on stdout, exit 0 on a judged input, 2 on bad input."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from meldcam.cli import main

REPO = Path(__file__).resolve().parents[2]


def run(capsys, *argv, stdin=None, monkeypatch=None):
    if stdin is not None:
        import io

        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_check_prints_the_contract(capsys):
    code, out, _ = run(
        capsys, "check", "--game", "rummikub", "red-1,red-2,red-3", "blue-1,red-2,red-3"
    )
    assert code == 0
    result = json.loads(out)
    assert result["valid"] is False
    assert result["opening"] is None
    first, second = result["melds"]
    assert first == {
        "pieces": ["red-1", "red-2", "red-3"],
        "valid": True,
        "kind": "run",
        "value": 6,
        "reason": None,
    }
    assert second["valid"] is False and second["kind"] is None and second["reason"]


def test_check_opening(capsys):
    code, out, _ = run(capsys, "check", "--game", "remik", "--opening", "red-8,red-9,red-10,red-11")
    assert code == 0
    assert json.loads(out)["opening"] == {"value": 38, "threshold": 36, "valid": True}


def test_table_prints_a_partition(capsys):
    code, out, _ = run(
        capsys, "table", "--game", "rummikub", "red-3", "red-1", "red-2", "blue-5,black-5,orange-5"
    )
    assert code == 0
    result = json.loads(out)
    assert result["valid"] is True and result["reason"] is None
    assert sorted(len(m) for m in result["melds"]) == [3, 3]


def test_score_reads_stdin(capsys, monkeypatch):
    hand = {
        "players": ["ann", "bob", "cy"],
        "winner": "ann",
        "racks": {"ann": [], "bob": ["red-7", "blue-8"], "cy": ["black-13", "orange-9"]},
        "from_hand": False,
    }
    code, out, _ = run(
        capsys, "score", "--game", "rummikub", stdin=json.dumps(hand), monkeypatch=monkeypatch
    )
    assert code == 0
    result = json.loads(out)
    assert result["winner"] == "ann"
    assert result["deltas"] == {"ann": 37, "bob": -15, "cy": -22}


@pytest.mark.parametrize(
    "argv, message",
    [
        (["check", "--game", "rummikub", "red-0,red-1,red-2"], "red-0"),
        (["check", "--game", "rummikub", "--option", "colour=red", "red-1,red-2,red-3"], "colour"),
        (["check", "--game", "rummikub", "red-1,,red-3"], "empty"),
        (["table", "--game", "domino-gin", "13-2"], "13-2"),
        (["check", "--game", "gin", "1H,2H,3H"], "1H"),
    ],
)
def test_bad_input_exits_2_with_a_message(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert message in err


def test_bad_json_on_stdin(capsys, monkeypatch):
    code, _, err = run(capsys, "score", "--game", "gin", stdin="{not json", monkeypatch=monkeypatch)
    assert code == 2 and "not valid JSON" in err


def test_unknown_game_is_an_argparse_error(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["check", "--game", "poker", "QH,QS,QD"])
    assert exit_info.value.code == 2


def test_console_script_runs_as_a_real_process():
    exe = Path(sys.executable).with_name("meldcam")
    command = [str(exe)] if exe.exists() else [sys.executable, "-m", "meldcam"]
    done = subprocess.run(
        [*command, "check", "--game", "gin", "7H,8H,9H"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["melds"][0]["kind"] == "run"


# --- meldcam hint --jsonl (issue 26) -------------------------------------------------------------

GOOD = {"table": [["red-3", "red-4", "red-5"]], "rack": ["red-6"], "opened": True}


def test_hint_jsonl_one_answer_per_line_and_bad_lines_go_on(capsys, monkeypatch):
    lines = [json.dumps(GOOD), "{not json", '{"rack": ["red-99"]}', "[1]", json.dumps(GOOD)]
    code, out, _ = run(
        capsys,
        "hint",
        "--game",
        "rummikub",
        "--jsonl",
        stdin="\n".join(lines) + "\n",
        monkeypatch=monkeypatch,
    )
    answers = [json.loads(line) for line in out.splitlines()]
    assert len(answers) == len(lines)
    assert code == 2  # some line was an error
    for index in (0, 4):
        assert answers[index]["placed"] == ["red-6"] and answers[index]["count"] == 1
    for index in (1, 2, 3):
        assert answers[index]["line"] == index + 1 and answers[index]["error"]
    assert "not valid JSON" in answers[1]["error"] and "red-99" in answers[2]["error"]
    assert all(isinstance(a["ms"], float) and a["ms"] >= 0 for a in answers)


def test_hint_jsonl_all_good_exits_0_and_takes_a_budget(capsys, monkeypatch):
    code, out, _ = run(
        capsys,
        "hint",
        "--game",
        "remik",
        "--option",
        "numbers=17",
        "--jsonl",
        "--budget-ms",
        "500",
        stdin=json.dumps({"rack": ["red-15", "red-16", "red-17"], "opened": True}) + "\n",
        monkeypatch=monkeypatch,
    )
    assert code == 0
    (answer,) = [json.loads(line) for line in out.splitlines()]
    assert answer["count"] == 3 and "exact" not in answer


def test_hint_jsonl_bad_game_fails_before_any_line(capsys, monkeypatch):
    code, out, err = run(
        capsys, "hint", "--game", "gin", "--jsonl", stdin="{}\n", monkeypatch=monkeypatch
    )
    assert code == 2 and out == "" and "hints exist for" in err


def test_hint_jsonl_as_a_real_process():
    """Answers stream out as lines; the times are inside the process (no start-up in them)."""
    exe = Path(sys.executable).with_name("meldcam")
    command = [str(exe)] if exe.exists() else [sys.executable, "-m", "meldcam"]
    lines = [json.dumps(GOOD), "oops", json.dumps({**GOOD, "opened": False})]
    done = subprocess.run(
        [*command, "hint", "--game", "rummikub", "--jsonl"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [("error" in a) for a in answers] == [False, True, False]
    assert answers[2]["count"] == 0  # not opened: a 4-6 run from the rack alone is no opening
    assert done.returncode == 2
    assert all(a["ms"] < 5000 for a in answers)
