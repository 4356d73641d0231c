"""The structure the code promises: layers, no import cycles, modules a reader can hold.

`lint-imports` (import-linter, contracts in pyproject.toml) also runs in CI; running it here
makes `make test` alone enough to see a broken layer.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("evaluation", "navigator", "curation", "knowledge")
MAX_MODULE_LINES = 500
# Above this a module holds two things unless its docstring says why it is one ("Kept whole:").
SPLIT_AT_LINES = 400
MAX_FORMATTER_SKIPS = 10
SKIP_MARKER = "# fmt" + ": skip"  # spelled in two, so this file does not count itself


def test_import_contracts_are_kept():
    lint_imports = Path(sys.executable).parent / "lint-imports"
    result = subprocess.run(
        [str(lint_imports), "--no-cache"], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_knowledge_has_layers_of_its_own_above_pure_text_readers():
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    contracts = contracts["contracts"]
    assert len(contracts) >= 4
    inside = [
        c for c in contracts if c["type"] == "layers" and c.get("containers") == ["knowledge"]
    ]
    assert inside and inside[0]["layers"][-1] == "text"
    readers = {path.stem for path in (ROOT / "knowledge" / "text").glob("*.py")}
    assert {"amounts", "dates", "question_dates", "glossary", "compare", "words"} <= readers
    loose = {path.stem for path in (ROOT / "knowledge").glob("*.py")}
    assert not loose & {"textfacts", "temporal", "question_dates", "glossary", "unitcompare"}


def test_the_formatter_formats_all_but_a_few_constant_tables():
    """A `# fmt: skip` keeps a reader's layout only for a module-level constant table (a
    column list, a word list), never for code."""
    skips = {
        (path, number)
        for package in (*PACKAGES, "tests")
        for path in (ROOT / package).rglob("*.py")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if line.rstrip().endswith(SKIP_MARKER)
    }
    assert len(skips) <= MAX_FORMATTER_SKIPS
    not_tables = [
        f"{path.relative_to(ROOT)}:{number}"
        for path, number in skips
        if number not in _constant_table_ends(path)
    ]
    assert not_tables == []


def _constant_table_ends(path: Path) -> set[int]:
    """The last lines of the module-level assignments to UPPER_CASE names."""
    ends = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign):
            targets = [node.target]
        if targets and all(isinstance(t, ast.Name) and t.id.lstrip("_").isupper() for t in targets):
            ends.add(node.end_lineno)
    return ends


def test_every_celery_task_has_a_caller():
    """A task nothing queues, chains or schedules is dead code that still looks like a job."""
    sources = {
        path: path.read_text(encoding="utf-8")
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
        if "migrations" not in path.parts
    }
    tasks = {
        node.name: path
        for path, text in sources.items()
        if path.name == "tasks.py"
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.FunctionDef)
        and any("shared_task" in ast.unparse(d) for d in node.decorator_list)
    }
    assert tasks
    uncalled = [
        name
        for name in tasks
        if not any(
            re.search(rf"\b{name}\b(?!\()", text.replace(f"def {name}(", ""))
            for text in sources.values()
        )
    ]
    assert uncalled == []


def test_no_module_imports_itself_through_others():
    graph = grimp.build_graph(*PACKAGES, cache_dir=None)
    cycles = [sorted(group) for group in _strongly_connected(graph) if len(group) > 1]
    assert cycles == []


def test_a_person_is_had_without_a_detour_through_retrieval():
    """Suggestions, verification and the API build a person (their profile, and the tax bands
    the knowledge base's table puts their income in) from the domain and the band table, which
    sit below retrieval, not from retrieval's own modules."""
    graph = grimp.build_graph(*PACKAGES, cache_dir=None)
    assert "knowledge.retrieval.tax_bands" not in graph.modules
    assert not graph.chain_exists(
        importer="knowledge.band_table", imported="knowledge.retrieval", as_packages=True
    )
    detours = {
        (module, imported)
        for package in ("knowledge.query", "knowledge.verification")
        for module in {package} | graph.find_descendants(package)
        for imported in graph.find_modules_directly_imported_by(module)
        if imported in {"knowledge.retrieval.tax_bands", "knowledge.retrieval.params"}
    }
    assert detours == set()
    had_from = {
        module
        for module in graph.find_modules_that_directly_import("knowledge.band_table")
        if not module.startswith("knowledge.retrieval")
    }
    assert {"knowledge.query.suggest", "navigator.answers"} <= had_from


def _module_lengths() -> dict[Path, int]:
    return {
        path: len(path.read_text(encoding="utf-8").splitlines())
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
        if "migrations" not in path.parts
    }


def test_no_module_outside_tests_and_migrations_is_over_500_lines():
    too_long = {
        str(path.relative_to(ROOT)): lines
        for path, lines in _module_lengths().items()
        if lines > MAX_MODULE_LINES
    }
    assert too_long == {}


def test_a_module_over_400_lines_says_in_its_docstring_why_it_is_one():
    """Modules split where their topics part, not where a cap bites: one that stays long
    gives its reason ("Kept whole: …")."""
    unexplained = [
        str(path.relative_to(ROOT))
        for path, lines in _module_lengths().items()
        if lines > SPLIT_AT_LINES
        and "Kept whole:" not in (ast.get_docstring(ast.parse(path.read_text("utf-8"))) or "")
    ]
    assert unexplained == []


def _imports(graph: grimp.ImportGraph, importers: str, imported: str) -> list[tuple[str, str]]:
    """The direct imports of `imported` (or a module inside it) by `importers`' modules."""
    return [
        (module, target)
        for module in graph.find_descendants(importers) | {importers}
        for target in graph.find_modules_directly_imported_by(module)
        if target == imported or target.startswith(f"{imported}.")
    ]


def test_evaluation_is_the_top_floor_and_owns_its_libraries():
    """Nothing that serves imports the evaluation, or scikit-learn and matplotlib, which
    only the evaluation (the `eval` extra) needs; the contracts that say so are kept."""
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    contracts = contracts["contracts"]
    assert len(contracts) >= 6
    serving = {"navigator", "curation", "knowledge"}
    assert any(
        c["type"] == "forbidden"
        and serving <= set(c["source_modules"])
        and {"evaluation", "sklearn", "matplotlib"} <= set(c["forbidden_modules"])
        for c in contracts
    )
    graph = grimp.build_graph(*PACKAGES, include_external_packages=True, cache_dir=None)
    for package in serving:
        for outside in ("evaluation", "sklearn", "matplotlib"):
            assert _imports(graph, package, outside) == []
    inside = next(c for c in contracts if c.get("containers") == ["knowledge"])
    floors = [layer.split(" | ") for layer in inside["layers"]]
    floor_of = {name: index for index, names in enumerate(floors) for name in names}
    assert floor_of["services"] < floor_of["providers"] < floor_of["extraction"]


def _strongly_connected(graph: grimp.ImportGraph) -> list[set[str]]:
    """Tarjan's algorithm over the module import graph (function-level imports included)."""
    index: dict[str, int] = {}
    lowlink: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(module: str) -> None:
        index[module] = lowlink[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in graph.find_modules_directly_imported_by(module):
            if imported not in index:
                visit(imported)
                lowlink[module] = min(lowlink[module], lowlink[imported])
            elif imported in on_stack:
                lowlink[module] = min(lowlink[module], index[imported])
        if lowlink[module] == index[module]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == module:
                    break
            groups.append(group)

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for module in sorted(graph.modules):
            if module not in index:
                visit(module)
    finally:
        sys.setrecursionlimit(limit)
    return groups
