"""No two modules, and no two packages, of evalkit import each other, directly or around a
loop. Every import counts: lazy ones inside functions and type-only ones under
`if TYPE_CHECKING:` too (a type-only loop still ties two modules into one). The layers
themselves are checked by `lint-imports` (pyproject.toml, docs/architecture.md "Layers"),
which leaves type-only imports out; this test does not.

The graph is grimp's (the library `lint-imports` is built on), built from the source."""

from __future__ import annotations

import grimp


def import_graph() -> dict[str, set[str]]:
    """Each evalkit module → the evalkit modules it imports anywhere in it, type-only imports included."""
    graph = grimp.build_graph("evalkit", exclude_type_checking_imports=False, cache_dir=None)
    return {name: set(graph.find_modules_directly_imported_by(name)) for name in graph.modules}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycles():
    assert cycles(import_graph()) == []


def package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The module graph folded onto evalkit's top-level packages and modules (`evalkit.engine`, `evalkit.cli`).

    Packages of one tier may import one another (pyproject.toml's contracts), but never
    both ways: a loop of packages would make them one package in all but name."""

    def package(name: str) -> str:
        return ".".join(name.split(".")[:2])

    folded: dict[str, set[str]] = {}
    for name, targets in graph.items():
        if name == "evalkit":
            continue
        edges = folded.setdefault(package(name), set())
        edges.update(package(t) for t in targets if t != "evalkit" and package(t) != package(name))
    return folded


def test_no_import_cycles_between_packages():
    assert cycles(package_graph(import_graph())) == []


def test_the_package_fold_sees_a_loop_of_packages():
    # Guards the fold: two modules that do not form a loop still make their packages one.
    graph = {"evalkit.a.x": {"evalkit.b.y"}, "evalkit.b.z": {"evalkit.a.w"}, "evalkit.a.w": set(), "evalkit.b.y": set()}
    assert cycles(graph) == []
    assert cycles(package_graph(graph)) == [["evalkit.a", "evalkit.b"]]


def test_the_walk_sees_imports_and_cycles():
    # Guards the test itself: real edges are found, and a loop is reported.
    graph = import_graph()
    assert "evalkit.engine.runner" in graph["evalkit.engine.evaluation"]
    assert "evalkit.criteria.base" in graph["evalkit.criteria.vertex.tools"]
    assert "evalkit.simulation.conversation" in graph["evalkit.engine.runner"]  # imported inside a function
    assert "evalkit.agents.base" in graph["evalkit.simulation.conversation"]  # under `if TYPE_CHECKING:` only
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_simulator_does_not_import_the_runner():
    assert "evalkit.engine.runner" not in graph_closure(import_graph(), "evalkit.simulation.conversation")


def test_the_parts_do_not_reach_into_the_run():
    # A part is handed what it needs (the simulator: the case and its config), never a run's own types.
    graph = import_graph()
    parts = ("agents", "criteria", "judge", "cassettes", "simulation", "calibration", "loading", "traces")
    for name, targets in graph.items():
        if name.partition(".")[2].split(".")[0] in parts:
            assert not {t for t in targets if t.startswith("evalkit.engine")}, name


def test_agents_criteria_and_the_judge_do_not_import_one_another_even_for_types():
    # lint-imports leaves type-only imports out of its independence contract; this does not.
    graph = package_graph(import_graph())
    independent = {"evalkit.agents", "evalkit.criteria", "evalkit.judge"}
    assert {(name, target) for name in independent for target in graph[name] & independent} == set()


def test_commands_do_not_import_each_other():
    graph = import_graph()
    for name, targets in graph.items():
        if name.startswith("evalkit.commands."):
            assert not {t for t in targets if t.startswith("evalkit.commands.")}, name


def graph_closure(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for target in graph.get(todo.pop(), ()):
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen
