"""The structure holds (issue 15): apps depend one way, models follow, one write path.

Layers, lowest first. A module may import its own layer and the layers below, never above —
module-level or inside a function alike. Function-level imports across apps exist only in
``apps.py`` (the ``ready()`` hook that fills a lower app's registry).

0. foundation: ``bizmemory.{tokens, api, admin_base, conf, conf_docs, conf_limits, collation}`` — import no domain app;
1. ``audit`` — sanitizer, quarantine, audit log;
2. ``profiles`` — the memory store and its reads;
3. ``consolidation`` — the pipeline;
4. the rest of ``bizmemory`` — settings, urls, checks, middleware, the context of a session (composition).
"""

from __future__ import annotations

import ast
import pathlib

import pytest
from django.apps import apps

ROOT = pathlib.Path(__file__).resolve().parent.parent
APPS = ("bizmemory", "audit", "profiles", "consolidation")
FOUNDATION = {
    "bizmemory.tokens", "bizmemory.api", "bizmemory.admin_base", "bizmemory.conf", "bizmemory.conf_docs",
    "bizmemory.conf_limits", "bizmemory.collation",
}
RANK = {"audit": 1, "profiles": 2, "consolidation": 3}


def _rank(module: str) -> int | None:
    top = module.split(".")[0]
    if top not in APPS:
        return None  # Django, libraries, the standard library
    if top == "bizmemory":
        return 0 if any(module == f or module.startswith(f + ".") for f in FOUNDATION) else 4
    return RANK[top]


def _module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _product_files():
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            if "migrations" not in path.parts:
                yield path


def _imports(path: pathlib.Path):
    """``(imported module, line, inside a function)`` for every absolute or relative import."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    inner = {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
             for n in ast.walk(f) if n is not f}
    package = _module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            names = [module] if node.module else [f"{module}.{a.name}" for a in node.names]
        else:
            continue
        for name in names:
            yield name, node.lineno, id(node) in inner


def _violations():
    out = []
    for path in _product_files():
        here = _module_name(path)
        own = _rank(here)
        for target, line, in_function in _imports(path):
            rank = _rank(target)
            if rank is None or target.split(".")[0] == here.split(".")[0] and own != 0 and rank != 0:
                continue  # outside the project, or within one app (foundation is checked below)
            where = f"{path.relative_to(ROOT)}:{line} imports {target}"
            if rank > own:
                out.append(f"{where} (layer {own} → {rank})")
            elif in_function and path.name != "apps.py" and target.split(".")[0] != here.split(".")[0]:
                out.append(f"{where} inside a function (only apps.py may)")
    return out


def test_it_finds_an_import_against_the_direction(tmp_path, monkeypatch):
    """The checker itself fails on a wrong import, module-level or function-level."""
    bad = ROOT / "audit" / "_architecture_probe.py"
    bad.write_text("import profiles.models\n\ndef f():\n    from consolidation import models\n", encoding="utf-8")
    try:
        found = [v for v in _violations() if "_architecture_probe" in v]
    finally:
        bad.unlink()
    assert len(found) == 2 and "layer 1 → 2" in found[0] and "layer 1 → 3" in found[1], found


def test_imports_run_one_way():
    assert _violations() == []


def test_models_refer_only_downwards():
    """Foreign keys follow the layers: audit's rows refer to no domain model, the memory store's
    only to audit's and its own, the pipeline's to anything below (sessions are ids above it)."""
    wrong = []
    for model in apps.get_models():
        own = RANK.get(model._meta.app_label)
        if own is None:
            continue
        for field in model._meta.get_fields():
            if field.is_relation and field.concrete and field.related_model is not None:
                other = RANK.get(field.related_model._meta.app_label, 0)
                if other > own:
                    wrong.append(f"{model._meta.label}.{field.name} → {field.related_model._meta.label}")
    assert wrong == []


@pytest.mark.parametrize("app", APPS)
def test_no_product_file_is_over_600_lines(app):
    long = {str(p.relative_to(ROOT)): n for p in (ROOT / app).rglob("*.py") if "migrations" not in p.parts
            and (n := len(p.read_text(encoding="utf-8").splitlines())) > 600}
    assert long == {}


def _long_functions(limit=80):
    """``path:line name (length)`` for every function or method longer than ``limit`` lines (its
    ``def`` line to its last, decorators not counted) in the apps and the top-level scripts."""
    paths = [*_product_files(), *sorted(ROOT.glob("*.py"))]
    long = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno + 1 > limit:
                long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1})")
    return long


def test_it_finds_a_function_over_80_lines():
    """The checker itself: an 81-line function is reported, an 80-line one and a long class are not."""
    probe = ROOT / "audit" / "_function_length_probe.py"
    eighty = "def eighty():\n" + "    x = 1\n" * 79
    eighty_one = "class Long:\n    def long(self):\n" + "        x = 1\n" * 79 + "        return x\n"
    probe.write_text(f"{eighty}\n\n{eighty_one}", encoding="utf-8")
    try:
        found = [f for f in _long_functions() if "_function_length_probe" in f]
    finally:
        probe.unlink()
    assert found == ["audit/_function_length_probe.py:84 long (81)"], found


def test_no_product_function_is_over_80_lines():
    assert _long_functions() == []


CLIENT = ROOT / "clients" / "python" / "src" / "bizmemory_client"


def test_the_python_client_stands_alone():
    """clients/python installs on its own (pyproject: httpx and tenacity): it imports nothing of the
    server, and holds to the product's sizes (files ≤ 600 lines, functions < 80)."""
    import sys

    allowed = {"httpx", "tenacity", "bizmemory_client"} | set(sys.stdlib_module_names)
    wrong, long = [], []
    for path in sorted(CLIENT.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                wrong += [f"{path.name}: {a.name}" for a in node.names if a.name.split(".")[0] not in allowed]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module.split(".")[0] not in allowed:
                wrong.append(f"{path.name}: {node.module}")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno >= 80:
                long.append(f"{path.name}:{node.lineno} {node.name}")
        if len(path.read_text(encoding="utf-8").splitlines()) > 600:
            long.append(path.name)
    assert wrong == [] and long == []
    assert len(list(CLIENT.rglob("*.py"))) >= 5
