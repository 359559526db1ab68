"""The layout's promises (docs/architecture.md): workers and the domain import no web code,
every key of one game hashes to one cluster slot, and no Redis call escapes the storage layer."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from redis.crc import key_slot

from service.storage import keys

ROOT = Path(__file__).resolve().parents[2]


def _loaded_after(module: str) -> set[str]:
    code = f"import sys, {module}; print(' '.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout
    return {name.split(".")[0] for name in out.split()} | set(out.split())


def test_workers_load_neither_flask_nor_marshmallow() -> None:
    loaded = _loaded_after("workers.main")
    assert "workers.resolve" in loaded and "service.notify.dispatch" in loaded
    assert not {"flask", "marshmallow", "flask_smorest", "flask_limiter"} & loaded
    assert not {m for m in loaded if m.startswith("service.web")}


def _imports(path: Path) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.append(node.module)
        elif isinstance(node, ast.Import):
            out += [alias.name for alias in node.names]
    return out


def test_the_layers_below_the_web_import_no_web_code() -> None:
    for package in ("domain", "notify", "storage", "ops"):
        for path in (ROOT / "service" / package).glob("*.py"):
            for module in _imports(path):
                assert not module.startswith(("service.web", "flask")), (path, module)


def test_the_protocol_package_needs_nothing_of_the_server() -> None:
    allowed = ("parley_protocol", "engines", "cryptography", "nacl", "rfc8785", "orjson",
               "__future__")  # the protocol distribution's own dependencies
    for path in [*(ROOT / "protocol" / "parley_protocol").glob("*.py"),
                 *(ROOT / "engines").rglob("*.py")]:
        for module in _imports(path):
            top = module.split(".")[0]
            assert top in allowed or top in sys.stdlib_module_names, (path, module)


def test_every_key_of_a_game_hashes_to_one_slot() -> None:
    for gid in ("g_1", "0123456789abcdef", "x" * 40):
        slots = {key_slot(keys.game_key(gid, part).encode()) for part in keys.GAME_PARTS}
        assert len(slots) == 1, (gid, slots)
    # and two games are spread (the tag is the game id, not a constant)
    assert key_slot(keys.game_key("a", "meta").encode()) != key_slot(
        keys.game_key("b", "meta").encode())


def test_redis_is_called_only_from_the_storage_layer() -> None:
    """A raw call on the store's connection (`store.r.<command>`) outside service/storage/."""
    offenders = []
    for path in list((ROOT / "service").rglob("*.py")) + list((ROOT / "workers").rglob("*.py")):
        if path.is_relative_to(ROOT / "service" / "storage"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute)
                    and node.value.attr == "r"):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} .r.{node.attr}")
    assert offenders == [], "\n".join(offenders)


def test_no_two_modules_share_a_name() -> None:
    """A name says what a module holds: one `games`, one `moves`, wherever it lives."""
    names: dict[str, list[str]] = {}
    for folder in (ROOT / "service", ROOT / "workers", ROOT / "protocol" / "parley_protocol"):
        for path in folder.rglob("*.py"):
            if path.name != "__init__.py":
                names.setdefault(path.stem, []).append(str(path.relative_to(ROOT)))
    assert {n: p for n, p in names.items() if len(p) > 1} == {}


#: circles still to break: each a strongly connected component of module names
KNOWN_CIRCLES: list[set[str]] = []


def _project_modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for base, tops in ((ROOT, ("service", "engines", "workers", "bench")),
                       (ROOT / "protocol", ("parley_protocol",))):
        for top in tops:
            for path in (base / top).rglob("*.py"):
                parts = list(path.relative_to(base).with_suffix("").parts)
                if parts[-1] == "__init__":
                    parts.pop()
                found[".".join(parts)] = path
    return found


def _run_time_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node but those under `if TYPE_CHECKING:` (imports for annotations only, which
    never run)."""
    nodes: list[ast.AST] = []
    todo = [tree]
    while todo:
        node = todo.pop()
        nodes.append(node)
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING",
                                                                   "typing.TYPE_CHECKING"):
            todo.extend(node.orelse)
            continue
        todo.extend(ast.iter_child_nodes(node))
    return nodes


def _project_imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules `name` imports when it runs, anywhere in it (a deferred import
    counts too: the two modules still need each other)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in _run_time_nodes(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                kept = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(kept + ([node.module] if node.module else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                out.add(full if full in modules else base)
        elif isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
    return {m for m in out if m in modules and m != name}


def _circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(component)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_circles_but_the_known_ones() -> None:
    modules = _project_modules()
    graph = {name: _project_imports(name, path, modules) for name, path in modules.items()}
    circles = _circles(graph)
    new = [sorted(c) for c in circles if c not in KNOWN_CIRCLES]
    assert not new, f"modules that import each other (move the shared piece down): {new}"
    gone = [sorted(c) for c in KNOWN_CIRCLES if c not in circles]
    assert not gone, f"broken circles still listed in KNOWN_CIRCLES: {gone}"
