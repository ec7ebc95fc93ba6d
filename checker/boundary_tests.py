"""The tests' end of the trust boundary: where the hidden tests and the verdict run, and learner code never does.

A learner's object (a `PCG32` instance, a function, a class, a module) reaches the tests as a `Handle`: its
methods can be called and its attributes read, each answer again as data (checker/boundary_codec.py). A handle
is equal only to itself: a learner's object cannot make `==` true. A learner's class is a `_RemoteType`
(calling it, isinstance and issubclass are answered over there), a learner's module a `RemoteModule`. The tests'
own objects go out as handles naming only their public methods, which is all learner code may call of them.
A malformed answer is a `BoundaryError`, a failed test, never a pass.
"""
from __future__ import annotations

import types

from .boundary_codec import CALLED_SPECIALS, BoundaryError, Side, side_of


class Handle:
    """An object of the learner's, seen from the tests: methods and attributes through the boundary, `==` is
    identity, its repr is the learner's (as text)."""

    __slots__ = ("_tl_side", "_tl_number", "_tl_kind", "_tl_generation", "_tl_methods", "__weakref__")

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name in object.__getattribute__(self, "_tl_methods"):
            return _Method(self, name)  # called at once, mostly: one crossing instead of two
        return side_of(self).request("getattr", self, (name,))

    def __eq__(self, other):
        return self is other

    def __hash__(self):
        return id(self)

    def __repr__(self):
        return side_of(self).request("call", BUILTIN_REPR, (self,))

    @staticmethod
    def _tl_many(handle, arguments: list) -> list:
        """checker/calls.py: many calls of this function of the learner's, in one request."""
        return side_of(handle).request("many", handle, (arguments,))


class _Method:
    """A method of a learner's object, named: calling it is one request."""

    __slots__ = ("handle", "name")

    def __init__(self, handle, name):
        self.handle, self.name = handle, name

    def __call__(self, *args, **kwargs):
        return side_of(self.handle).request("method", self.handle, args, kwargs, name=self.name)

    @staticmethod
    def _tl_many(method, arguments: list) -> list:
        """checker/calls.py: many calls of this method, in one request."""
        return side_of(method.handle).request("many", method.handle, (arguments,), name=method.name)

    def __repr__(self):
        return f"<method {self.name} of an object of your code>"


def _forward(name: str):
    def special(self, *args, **kwargs):
        return side_of(self).request("special", self, args, kwargs, name=name)
    special.__name__ = name
    return special


for _name in ("__call__", "__float__", "__int__", "__index__", "__bool__", "__len__", "__iter__", "__next__",
              "__getitem__", "__contains__", "__str__"):
    setattr(Handle, _name, _forward(_name))


class _RemoteType(type):
    """The metaclass of a learner's class seen from the tests: calling it makes a learner's object, isinstance
    and issubclass are answered over there."""

    def __call__(cls, *args, **kwargs):
        return cls._tl_side.request("call", cls, args, kwargs)

    def __instancecheck__(cls, value):
        return cls._tl_side.request("call", BUILTIN_ISINSTANCE, (value, cls)) is True

    def __subclasscheck__(cls, value):
        return cls._tl_side.request("call", BUILTIN_ISSUBCLASS, (value, cls)) is True

    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return cls._tl_side.request("getattr", cls, (name,))

    def __repr__(cls):
        return f"<learner class {cls.__qualname__}>"


class RemoteModule(types.ModuleType):
    """A module of the learner's files, seen from the tests: each attribute asked for over there."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        value = self.__dict__["_tl_side"].request("getattr", self, (name,))
        if isinstance(value, (RemoteModule, _RemoteType)) or (isinstance(value, Handle) and
                                                               object.__getattribute__(value, "_tl_kind") == "function"):
            self.__dict__[name] = value  # a function, class or module of the learner's: asked for once
        return value


class _Builtin:
    def __init__(self, name):
        self.name = name


BUILTIN_REPR, BUILTIN_ISINSTANCE, BUILTIN_ISSUBCLASS = _Builtin("repr"), _Builtin("isinstance"), _Builtin("issubclass")


class TestsSide(Side):
    """The tests' end: learner objects are handles, the tests' own objects go out as proxies with their public
    methods (checker/separated.py `Tests` starts the learner's interpreter again when it is gone)."""

    flatten_subclasses = False  # the tests' values are what they are

    def __init__(self, channel):
        super().__init__(channel)
        self.methods: dict[int, list[str]] = {}
        self.generation = 0  # how many times the learner's interpreter was started again (checker/separated.py)

    def forget(self) -> None:
        super().forget()
        self.methods.clear()

    def visible_names(self, value) -> list[str]:
        key = id(value)
        if key not in self.methods:
            self.methods[key] = self._methods_of(value)
        return self.methods[key]

    @staticmethod
    def _methods_of(value) -> list[str]:
        names = []
        for name in dir(type(value)):
            if name in CALLED_SPECIALS and getattr(type(value), name, None) is not getattr(object, name, None):
                names.append(name)
        for name in dir(value):
            if not name.startswith("_"):
                try:
                    if callable(getattr(value, name)):
                        names.append(name)
                except Exception:  # noqa: BLE001 - a property that raises: not a method
                    pass
        if callable(value) and "__call__" not in names:
            names.append("__call__")
        return names

    def make_stand_in(self, number, kind, names):
        marks = {"_tl_side": self, "_tl_number": number, "_tl_kind": kind, "_tl_generation": self.generation,
                 "_tl_methods": frozenset(names) if kind == "object" else frozenset()}
        if kind == "class":
            return _RemoteType(str(names[0]) if names else "LearnerClass", (), marks)
        if kind == "module":
            module = RemoteModule(names[0] if names else "learner")
            module.__dict__.update(marks)
            return module
        handle = object.__new__(Handle)
        for slot, value in marks.items():
            object.__setattr__(handle, slot, value)
        return handle

    def reference(self, value):
        if isinstance(value, _Builtin):
            return ["B", value.name]
        if isinstance(value, (Handle, RemoteModule, _RemoteType)):
            return self.encode_stand_in(value, None)
        return super().reference(value)

    def encode_stand_in(self, value, enc):
        if type(value) is Handle:
            number, generation = value._tl_number, value._tl_generation
        else:
            number, generation = value.__dict__["_tl_number"], value.__dict__["_tl_generation"]
        if generation != self.generation:
            raise BoundaryError("an object of your code from before it was started again (after a time limit or "
                                "a crash) cannot be used any more")
        return ["x", number]

    def perform(self, op, target, args, kwargs, message):
        """What learner code may ask of the tests: a method of an object the tests passed it, by name."""
        name = message.get("name")
        if op != "method" or type(name) is not str or name not in self.visible_names(target) \
                or isinstance(target, (Handle, RemoteModule, _RemoteType)):
            raise AttributeError(f"{type(target).__name__!s} has no method {str(name)[:40]!r} learner code may call")
        if name == "__call__":
            return target(*args, **kwargs)
        if name in CALLED_SPECIALS:
            return getattr(type(target), name)(target, *args, **kwargs)
        return getattr(target, name)(*args, **kwargs)

    def may_answer(self, exc):
        return isinstance(exc, Exception)  # a time limit or Stop in the tests' callback ends the test, as it would

    def import_module(self, name: str):
        return self.request("import", None, (name,))


TestsSide.stand_ins = (Handle, RemoteModule, _RemoteType)
