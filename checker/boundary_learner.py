"""The learner's end of the trust boundary: the interpreter where learner code runs, serving the tests' requests.

An object of the tests (a `UniformSource` that counts draws, a callback) reaches learner code as a `Proxy`: only
the methods it was sent with (its public ones, and the special methods in CALLED_SPECIALS it has) can be called,
each call runs on the tests' side and its result comes back as data; no attribute of it can be read, so no walk
leads back to the tests' interpreter. `LearnerSide.perform` is everything the tests may ask of this side: a call,
a special method, an attribute, a method, many calls at once (checker/calls.py), an import; an exception keeps
its type name and message, and the learner's frames, under the names the learner knows.
"""
from __future__ import annotations

import sys
import traceback
import types
from typing import Callable

from .boundary_codec import CALLED_SPECIALS, BoundaryError, FRAME_CAP, Side, side_of


class Proxy:
    """An object of the tests, seen from learner code: only the methods it was sent with can be called."""

    __slots__ = ("_tl_side", "_tl_number", "_tl_names", "__weakref__")

    def __getattr__(self, name):
        if name in object.__getattribute__(self, "_tl_names") and not name.startswith("_"):
            side = side_of(self)
            return lambda *args, **kwargs: side.request("method", self, args, kwargs, name=name)
        raise AttributeError(f"this object of the tests has no attribute {name!r} your code may use")

    def __repr__(self):
        return "<an object of the hidden tests>"


def _proxy_special(name: str, fallback):
    def special(self, *args):
        if name in object.__getattribute__(self, "_tl_names"):
            return side_of(self).request("method", self, args, name=name)
        return fallback(self, *args)
    special.__name__ = name
    return special


def _no(kind: str):
    def missing(self, *args):
        raise TypeError(f"an object of the hidden tests does not support {kind}")
    return missing


for _name in CALLED_SPECIALS:
    if _name in ("__repr__",):
        continue
    if _name == "__str__":
        setattr(Proxy, _name, _proxy_special(_name, lambda self: "<an object of the hidden tests>"))
    elif _name == "__bool__":
        setattr(Proxy, _name, _proxy_special(_name, lambda self: True))
    elif _name in ("__lt__", "__le__", "__gt__", "__ge__", "__add__", "__radd__", "__sub__", "__rsub__", "__mul__",
                   "__rmul__", "__truediv__", "__rtruediv__"):
        setattr(Proxy, _name, _proxy_special(_name, lambda self, other: NotImplemented))
    elif _name == "__array__":
        pass  # numpy looks __array__ up by name: __getattr__ offers it only when the object has it
    else:
        setattr(Proxy, _name, _proxy_special(_name, _no(_name.strip("_"))))
Proxy.__hash__ = lambda self: id(self)
Proxy.__eq__ = lambda self, other: self is other


class LearnerSide(Side):
    """The learner's end: serves the tests' requests on learner objects; the tests' objects are proxies."""

    takes_builtins = True

    def __init__(self, channel, display: Callable[[str], str | None] = lambda filename: None):
        super().__init__(channel)
        self.display = display
        self.methods: dict[type, list[str]] = {}

    def make_stand_in(self, number, kind, names):
        proxy = object.__new__(Proxy)
        for slot, value in (("_tl_side", self), ("_tl_number", number), ("_tl_names", frozenset(names))):
            object.__setattr__(proxy, slot, value)
        return proxy

    def reference(self, value):
        if isinstance(value, Proxy):
            return self.encode_stand_in(value, None)
        return super().reference(value)

    def visible_names(self, value) -> list[str]:
        """A class's or module's name; an object's methods (functions of its class), which the tests' side then
        calls in one request."""
        if isinstance(value, (type, types.ModuleType)):
            return [str(getattr(value, "__qualname__", None) or getattr(value, "__name__", "learner"))]
        kind = type(value)
        if kind not in self.methods:
            self.methods[kind] = [n for n, v in vars_of(kind).items() if not n.startswith("_")
                                  and isinstance(v, (types.FunctionType, staticmethod, classmethod))]
        return self.methods[kind]

    def frames_of(self, exc) -> list:
        out = []
        for frame in traceback.extract_tb(exc.__traceback__, limit=-FRAME_CAP):
            shown = self.display(frame.filename)
            if shown:
                out.append([shown, frame.lineno or 0, frame.name, (frame.line or "")[:200]])
        return out

    def perform(self, op, target, args, kwargs, message):
        if op == "call":
            return target(*args, **kwargs)
        if op == "special":
            name = message.get("name")
            if type(name) is not str or name not in CALLED_SPECIALS:
                raise AttributeError("not a special method the tests may call")
            if name == "__call__":
                return target(*args, **kwargs)
            return getattr(type(target), name)(target, *args)
        if op == "getattr":
            (name,) = args
            return getattr(target, name)
        if op == "method":
            name = message.get("name")
            if type(name) is not str:
                raise AttributeError("a method without a name")
            return getattr(target, name)(*args, **kwargs)
        if op == "many":  # checker/calls.py: in order, the first exception stops them, as a comprehension would
            (arguments,) = args
            name = message.get("name")
            if type(arguments) is not list or not all(type(a) is tuple for a in arguments):
                raise BoundaryError("many calls need a list of argument tuples")
            if name is None:
                return [target(*a) for a in arguments]
            if type(name) is not str:
                raise AttributeError("a method without a name")
            return [getattr(target, name)(*a) for a in arguments]
        if op == "import":
            (name,) = args
            return sys.modules[name] if name in sys.modules else __import__(name, fromlist=["_"])
        return super().perform(op, target, args, kwargs, message)


def vars_of(kind: type) -> dict:
    """The attributes a class and its bases define (the learner's first), without running any of them."""
    found = {}
    for base in reversed(type.__getattribute__(kind, "__mro__")):
        found.update(type.__getattribute__(base, "__dict__"))
    return found


LearnerSide.stand_ins = (Proxy,)


LearnerSide.stand_ins = (Proxy,)
