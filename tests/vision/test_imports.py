"""``vision`` imports as a chain: no module imports one that imports it back, at module level
or inside a function. Settings types (``vision.settings``) -> per-kind hooks (``vision.tiles``,
``vision.dominoes``, ``vision.cards``) -> the kinds' settings (``vision.kinds``) -> the
recogniser (``vision.pipeline``) -> what builds on it (``vision.recognisers``, ``vision.api``).
"""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

VISION = Path(__file__).resolve().parents[2] / "vision"
MODULES = sorted(path.stem for path in VISION.glob("*.py") if path.stem != "__init__")


def _imports(path: Path) -> set[str]:
    """The ``vision`` modules ``path`` imports anywhere in it (a function's body too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "vision":
                found |= {alias.name for alias in node.names}
            elif node.module.startswith("vision."):
                found.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            found |= {a.name.split(".")[1] for a in node.names if a.name.startswith("vision.")}
    return (found & set(MODULES)) - {path.stem}


def import_graph() -> dict[str, set[str]]:
    return {name: _imports(VISION / f"{name}.py") for name in MODULES}


def layers(graph: dict[str, set[str]]) -> list[list[str]]:
    """The modules by layer: each imports only modules of the layers before it."""
    sorter = TopologicalSorter(graph)
    sorter.prepare()  # CycleError on a cycle
    out = []
    while sorter.is_active():
        ready = sorted(sorter.get_ready())
        out.append(ready)
        sorter.done(*ready)
    return out


def test_vision_imports_without_a_cycle():
    graph = import_graph()
    try:
        found = layers(graph)
    except CycleError as error:
        raise AssertionError(f"vision imports in a circle: {error.args[1]}") from None
    print("\n".join(f"{i}: {', '.join(layer)}" for i, layer in enumerate(found)))
    order = {name: i for i, layer in enumerate(found) for name in layer}
    chain = ["settings", "cards", "kinds", "pipeline", "recognisers"]
    assert [order[name] for name in chain] == sorted(order[name] for name in chain), found
    assert order["settings"] < min(order[hook] for hook in ("cards", "dominoes", "tiles"))
    assert max(order[hook] for hook in ("cards", "dominoes", "tiles")) < order["kinds"]


def test_the_chain_runs_one_way():
    """Settings import no other ``vision`` module at run time; the per-kind hooks never the
    kinds or the recogniser; the kinds never the recogniser."""
    graph = import_graph()
    runtime = _imports_at_run_time(VISION / "settings.py")
    assert runtime == set(), runtime
    for hook in ("cards", "dominoes", "tiles"):
        assert not graph[hook] & {"kinds", "pipeline", "recognisers", "api"}, hook
    assert not graph["kinds"] & {"pipeline", "recognisers", "api"}
    assert "pipeline" not in graph["twostage"] | graph["second"]
    assert "second" not in graph["twostage"]


def _imports_at_run_time(path: Path) -> set[str]:
    """As ``_imports``, leaving out what ``if TYPE_CHECKING:`` imports."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            node.body = []
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("vision"):
            found.add(node.module)
    return found
