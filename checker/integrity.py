"""Notice when learner code has tampered with the machinery that judges it.

Learner code runs in the same interpreter as the hidden tests (in the browser there is no other). Code that
replaces `builtins.len`, `numpy.allclose`, a pytest internal or a function of this checker could make wrong code
look right, by accident or on purpose. Before, during and after a check the judge compares the identity of every
attribute of the watched modules (and of the classes they define) with a baseline taken before any learner code
ran; any change makes the verdict an error that names what changed, and tells the worker to restart.

This is a guard against accidents and casual tricks, not a sandbox: a determined learner can still reach the
judge's data through the garbage collector. The hidden tests are shipped to the browser anyway; checks are
self-assessment, and the documentation says so.
"""
from __future__ import annotations

import sys

WATCHED = ("builtins", "json", "math", "fractions", "numpy", "pytest", "_pytest", "pluggy", "checker")
# numpy has hundreds of submodules; tests reach numpy through these namespaces.
NUMPY_MODULES = ("numpy", "numpy.random", "numpy.linalg", "numpy.testing")

# Module globals that pytest itself sets for each session (assertion rewriting hooks); they change legitimately.
MUTABLE = {"_pytest.assertion.util._config", "_pytest.assertion.util._reprcompare",
           "_pytest.assertion.util._assertion_pass"}

_baseline: dict[str, dict[str, int]] = {}


def _watched(name: str) -> bool:
    top = name.split(".", 1)[0]
    if top not in WATCHED:
        return False
    return top != "numpy" or name in NUMPY_MODULES


def snapshot() -> dict[str, dict[str, int]]:
    """Identity of every public attribute of the watched modules and of the classes they define."""
    snap: dict[str, dict[str, int]] = {}
    modules = {name: mod for name, mod in list(sys.modules.items()) if mod is not None and _watched(name)}
    snap["sys.modules"] = {name: id(mod) for name, mod in modules.items()}
    for name, mod in modules.items():
        entries: dict[str, int] = {}
        for key, value in list(vars(mod).items()):
            if key.startswith("__"):
                continue
            entries[key] = id(value)
            if isinstance(value, type) and getattr(value, "__module__", None) == name and not name.startswith("numpy"):
                for attr, member in list(vars(value).items()):
                    if not attr.startswith("__") or attr in ("__init__", "__call__", "__eq__"):
                        entries[f"{key}.{attr}"] = id(member)
        snap[name] = entries
    return snap


def arm() -> None:
    """Record the baseline: call before any learner code runs. Calling again adds newly loaded modules only."""
    for name, entries in snapshot().items():
        if name == "sys.modules":
            _baseline.setdefault(name, {}).update({k: v for k, v in entries.items() if k not in _baseline.get(name, {})})
        else:
            _baseline.setdefault(name, entries)


def armed() -> bool:
    return bool(_baseline)


_MISSING = object()  # what a lookup finds where the baseline's object is gone; never in any baseline
# The armed baseline's plans (`_plan`), by module; an entries dict of `_baseline` never changes once recorded.
_plans: dict[str, tuple[dict, list, list]] = {}


def _group(entries: dict[str, int]) -> tuple[list, list]:
    """A module's baseline entries grouped for `changes`: (attr, id) pairs, then (class, [(member, id, key)]),
    so that `changes` looks each module and class namespace up once instead of once per entry."""
    tops: list[tuple[str, int]] = []
    members: dict[str, list[tuple[str, int, str]]] = {}
    for key, ident in entries.items():
        name, dot, member = key.partition(".")
        if dot:
            members.setdefault(name, []).append((member, ident, key))
        else:
            tops.append((key, ident))
    return tops, list(members.items())


def _plan(name: str, entries: dict[str, int], armed: bool) -> tuple[list, list]:
    """`_group(entries)`, kept for the armed baseline, which every check compares against three times. A
    baseline of one check's own (taken when nothing was armed) is grouped afresh: keeping it would keep every
    such baseline alive."""
    if not armed:
        return _group(entries)
    held = _plans.get(name)
    if held is None or held[0] is not entries:
        held = _plans[name] = (entries, *_group(entries))
    return held[1], held[2]


def changes(baseline: dict[str, dict[str, int]] | None = None) -> list[str]:
    """Names of watched attributes replaced or removed since the baseline (new attributes are fine).

    Looks up only what the baseline holds rather than taking a new snapshot: this runs three times per check.
    A "Class.attr" entry counts as changed when the class is gone, replaced by anything that is not a class the
    module defines, or lost the member.
    """
    base = baseline if baseline is not None else _baseline
    modules = sys.modules
    found = []
    for name, was in base.get("sys.modules", {}).items():
        mod = modules.get(name)
        if mod is not None and id(mod) != was:
            found.append(f"sys.modules[{name!r}]")
    for name, entries in base.items():
        mod = modules.get(name)
        if name == "sys.modules" or mod is None:
            continue
        tops, classes = _plan(name, entries, base is _baseline)
        try:
            space = vars(mod)
        except TypeError:  # the module replaced by something without a __dict__
            found.extend(f"{name}.{key}" for key in entries if f"{name}.{key}" not in MUTABLE)
            continue
        get = space.get
        for attr, ident in tops:
            if id(get(attr, _MISSING)) != ident and f"{name}.{attr}" not in MUTABLE:
                found.append(f"{name}.{attr}")
        for cls_name, wanted in classes:
            cls = get(cls_name, _MISSING)
            inside = vars(cls) if isinstance(cls, type) and getattr(cls, "__module__", None) == name else {}
            for member, ident, key in wanted:
                if id(inside.get(member, _MISSING)) != ident and f"{name}.{key}" not in MUTABLE:
                    found.append(f"{name}.{key}")
    return sorted(found)
