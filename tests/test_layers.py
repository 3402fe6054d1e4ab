"""The sidecar's packages follow the data's path: no package imports one that imports it back,
directly or through others, and no module either, counting imports inside functions too (they
hide a cycle, not end it).
"""

from __future__ import annotations

import ast
from pathlib import Path

SIDECAR = Path(__file__).resolve().parent.parent / "sidecar"


def _modules() -> dict[str, Path]:
    out = {}
    for path in SIDECAR.rglob("*.py"):
        parts = path.relative_to(SIDECAR.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def module_graph() -> dict[str, set[str]]:
    """Each module's imports of other modules; `from sidecar.index import ledger` imports the
    module `ledger`, and the package's `__init__` only for names that are not modules."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                inner = {f"{node.module}.{a.name}" for a in node.names} & modules.keys()
                found |= inner
                if len(inner) < len(node.names) and node.module in modules:
                    found.add(node.module)
            elif isinstance(node, ast.Import):
                found |= {a.name for a in node.names} & modules.keys()
        graph[name] = found - {name}
    return graph


def package_graph() -> dict[str, set[str]]:
    """The module graph read by package (or top-level module): `sidecar.index.ledger` is
    `index`; the root package, which holds only the version, is left out."""
    graph: dict[str, set[str]] = {}
    for name, imports in module_graph().items():
        if name == "sidecar":
            continue
        own = name.split(".")[1]
        graph.setdefault(own, set()).update(
            other.split(".")[1] for other in imports if other != "sidecar")
        graph[own].discard(own)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one node (Tarjan)."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[set[str]] = []

    def visit(node: str) -> None:
        order[node] = low[node] = len(order)
        stack.append(node)
        for other in graph.get(node, ()):
            if other not in order:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], order[other])
        if low[node] == order[node]:
            component = set()
            while True:
                top = stack.pop()
                component.add(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(component)

    for node in sorted(graph):
        if node not in order:
            visit(node)
    return found


def test_no_package_of_the_sidecar_imports_one_that_imports_it_back() -> None:
    graph = package_graph()
    assert {"index", "models", "language", "documents", "web"} <= graph.keys()
    assert cycles(graph) == []


def test_no_module_of_the_sidecar_imports_one_that_imports_it_back() -> None:
    graph = module_graph()
    assert {"sidecar.models.embedder", "sidecar.models.choice", "sidecar.index"} <= graph.keys()
    assert cycles(graph) == []


def test_a_cycle_through_several_packages_is_found() -> None:
    graph = {"index": {"documents"}, "documents": {"web"}, "web": {"index"}, "vault": set()}
    assert cycles(graph) == [{"index", "documents", "web"}]
