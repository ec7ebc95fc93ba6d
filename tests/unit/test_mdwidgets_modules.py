"""mdwidgets is one module per widget block, and its imports have no cycle: no module of the package imports the
package itself (its __init__, which imports every block to register it), and its modules' imports form no loop."""
from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def module_name(path: Path, package: str) -> str:
    return package if path.stem == "__init__" else f"{package}.{path.stem}"


def imports(folder: Path, package: str = "mdwidgets") -> dict[str, list[tuple[int, str]]]:
    """For each module of the package, (line, module of the same package) for every import of one; `from pkg
    import x` names the module pkg.x when x.py exists, else the package's __init__."""
    found: dict[str, list[tuple[int, str]]] = {}
    for path in sorted(folder.glob("*.py")):
        edges = found.setdefault(module_name(path, package), [])
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                edges += [(node.lineno, a.name) for a in node.names if a.name.split(".")[0] == package]
            elif isinstance(node, ast.ImportFrom):
                if node.level == 0:
                    base = node.module
                else:  # relative: within the package, or above it
                    base = (f"{package}.{node.module}" if node.module else package) if node.level == 1 else None
                if base == package:
                    edges += [(node.lineno, f"{package}.{a.name}" if (folder / f"{a.name}.py").is_file()
                               else package) for a in node.names]
                elif base and base.startswith(package + "."):
                    edges.append((node.lineno, base))
    return found


def imports_of_the_package(folder: Path, package: str = "mdwidgets") -> list[str]:
    """`file:line` of every import of the package's __init__ from a module inside it."""
    return [f"{name}:{line}" for name, edges in imports(folder, package).items() if name != package
            for line, target in edges if target == package]


def cycle(folder: Path, package: str = "mdwidgets") -> list[str]:
    """One loop of imports among the package's modules (empty when there is none)."""
    graph = {name: [target for _, target in edges] for name, edges in imports(folder, package).items()}
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> list[str]:
        if name in path:
            return path[path.index(name):] + [name]
        if name in done:
            return []
        for target in graph.get(name, []):
            if loop := visit(target, path + [name]):
                return loop
        done.add(name)
        return []

    return next((loop for name in sorted(graph) if (loop := visit(name, []))), [])


def blocks_per_module(folder: Path) -> dict[str, list[str]]:
    """The widget blocks (classes with a NAME) each module defines."""
    found = {}
    for path in sorted(folder.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        classes = [node for node in tree.body if isinstance(node, ast.ClassDef)]
        found[path.name] = [c.name for c in classes if any(
            isinstance(s, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "NAME" for t in s.targets)
            for s in c.body)]
    return found


def test_no_module_imports_the_package():
    assert imports_of_the_package(REPO / "mdwidgets") == []


def test_the_modules_imports_have_no_cycle():
    assert cycle(REPO / "mdwidgets") == []


def test_one_block_per_module():
    found = blocks_per_module(REPO / "mdwidgets")
    assert {name: blocks for name, blocks in found.items() if len(blocks) > 1} == {}
    import mdwidgets

    assert sum(len(blocks) for blocks in found.values()) == len(mdwidgets.BLOCKS)  # each registered block, once


def test_the_checks_can_fail(tmp_path):
    """A block that imports the package's __init__, and two modules that import each other, are found; importing
    a sibling module through the package (`from pkg import base`) is not an import of __init__."""
    for name, text in {"__init__.py": "from pkg.block import Block\n", "base.py": "import pkg.block\n",
                       "block.py": "from pkg import base\nfrom pkg import register\n",
                       "other.py": "from . import base\nfrom .block import Block\n"}.items():
        (tmp_path / name).write_text(text)
    assert imports_of_the_package(tmp_path, "pkg") == ["pkg.block:2"]
    assert cycle(tmp_path, "pkg") in (["pkg.base", "pkg.block", "pkg.base"], ["pkg.block", "pkg.base", "pkg.block"])
    (tmp_path / "block.py").write_text("class Block:\n    NAME = 'a'\n\n\nclass Other:\n    NAME = 'b'\n")
    assert blocks_per_module(tmp_path)["block.py"] == ["Block", "Other"]
