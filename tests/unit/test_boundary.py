"""The trust boundary (checker/boundary.py, separated.py, learnerproc.py): what crosses between the tests'
interpreter and the learner's, and what a call keeps of its meaning.

Each test starts a real learner process (checker/learnerproc.py) with a small module of its own, and talks to it
as the hidden tests do, through the stand-in modules.
"""
from __future__ import annotations

import json
import math
import random
import sys
import textwrap

import numpy as np
import pytest

from checker import boundary, learnerproc, separated
from checker.isolation import TestTimeout, alarm

LEARNER = '''
import numpy as np


def same(x):
    return x


def copy(x):
    return np.array(x, dtype=float)


def view(x):
    return x[1:]


def sort_in_place(xs):
    xs.sort()
    return None


def scale_in_place(a):
    a *= 2


def draw(rng, n):
    return rng.random(n)


def draws(source, n):
    return [source.uniform() for _ in range(n)]


def peek(source):
    return source.secret


def touch(obj):
    return float(obj)


def fail(text):
    raise ValueError(text)


class Odd(Exception):
    pass


def fail_oddly():
    raise Odd("odd")


class Counter:
    def __init__(self, start=0):
        self.n = start

    def bump(self, by=1):
        self.n += by
        return self.n


class Yes:
    def __eq__(self, other):
        return True


def always_equal():
    return Yes()


class Half(float):
    def __eq__(self, other):
        return True


def lying_float():
    return Half(0.25)


def spin():
    while True:
        pass


def die():
    import os
    os._exit(3)


def kinds():
    return (1, 2.5, True, None, "s", b"b", 1 + 2j, float("nan"), np.float64(0.5), np.int64(7), np.bool_(True),
            {"k": [1, (2, 3)]}, {1, 2}, frozenset({3}), np.arange(6, dtype=np.int32).reshape(2, 3))
'''


@pytest.fixture
def learner(tmp_path):
    """The stand-in module `m` of LEARNER, in a learner process of its own."""
    side = separated.Learner(learnerproc.connector(tmp_path), {"m.py": textwrap.dedent(LEARNER)}, "m.py", 10)
    assert side.load()["status"] == "ok"
    modules = {}
    side.install(modules)
    yield modules["m"]
    side.finish()


def test_values_cross_with_their_exact_types(learner):
    got = learner.kinds()
    want = (1, 2.5, True, None, "s", b"b", 1 + 2j)
    assert got[:7] == want and [type(v) for v in got[:7]] == [type(v) for v in want]
    assert math.isnan(got[7])
    assert type(got[8]) is np.float64 and got[8] == 0.5
    assert type(got[9]) is np.int64 and got[9] == 7 and type(got[10]) is np.bool_
    assert got[11] == {"k": [1, (2, 3)]} and got[12] == {1, 2} and got[13] == frozenset({3})
    assert got[14].dtype == np.int32 and got[14].shape == (2, 3) and got[14].tolist() == [[0, 1, 2], [3, 4, 5]]


def test_an_argument_returned_is_the_callers_own_object(learner):
    p = np.array([0.5, 0.5])
    assert learner.same(p) is p, "a mutant that returns its argument must still be caught by `is`"
    listed = [1, 2]
    assert learner.same(listed) is listed
    assert learner.copy(p) is not p and not np.shares_memory(learner.copy(p), p)
    both = learner.same((p, p))
    assert both[0] is p and both[1] is p
    q = np.array([1.0, 2.0, 3.0])
    tail = learner.view(q)
    assert tail.tolist() == [2.0, 3.0] and tail is not q and np.shares_memory(tail, q), "a view stays a view"
    tail[0] = 9.0
    assert q.tolist() == [1.0, 9.0, 3.0]
    column = np.arange(6.0).reshape(3, 2)[:, 0]  # not contiguous: the view arrives as a copy
    assert learner.view(column).tolist() == [2.0, 4.0]


def test_changes_in_place_reach_the_callers_objects(learner):
    xs = [3, 1, 2]
    assert learner.sort_in_place(xs) is None and xs == [1, 2, 3]
    a = np.array([1.0, 2.0])
    learner.scale_in_place(a)
    assert a.tolist() == [2.0, 4.0]


def test_a_generator_advances_as_if_it_had_been_used_here(learner):
    rng, twin = np.random.default_rng(5), np.random.default_rng(5)
    assert learner.draw(rng, 3).tolist() == twin.random(3).tolist()
    assert rng.random() == twin.random(), "the tests' generator moved on exactly as far as the learner drew"
    r = random.Random(3)
    assert isinstance(learner.same(r), random.Random)


def test_an_object_of_the_tests_offers_its_methods_only(learner):
    class Source:
        secret = 0.125

        def __init__(self):
            self.drawn = 0

        def uniform(self):
            self.drawn += 1
            return 0.25

    source = Source()
    assert learner.draws(source, 3) == [0.25, 0.25, 0.25] and source.drawn == 3
    with pytest.raises(AttributeError, match="no attribute 'secret'"):
        learner.peek(source)


def test_an_exception_in_a_tests_callback_keeps_its_traceback(learner):
    class Untouchable:
        def __float__(self):
            raise AssertionError("touched")

    with pytest.raises(AssertionError, match="touched") as info:
        learner.touch(Untouchable())
    names = [entry.name for entry in info.traceback]
    assert "__float__" in names, "the tests' own frames are kept, so a failure's case is the same as in one process"


def test_learner_exceptions_keep_type_name_message_and_frames(learner):
    with pytest.raises(ValueError, match="bad p") as info:
        learner.fail("bad p")
    frames = info.value.__tl_frames__
    assert frames and frames[-1][0] == "m.py" and frames[-1][2] == "fail"
    with pytest.raises(Exception) as odd:
        learner.fail_oddly()
    assert type(odd.value).__name__ == "Odd" and type(odd.value).__module__ == "m"


def test_a_learner_object_is_a_handle(learner):
    counter = learner.Counter(5)
    assert isinstance(counter, boundary.Handle) and isinstance(counter, learner.Counter)
    assert counter.bump() == 6 and counter.bump(by=4) == 10 and counter.n == 10
    assert counter == counter and counter != learner.Counter(10)
    assert not isinstance(object(), learner.Counter)


def test_equality_and_numbers_cannot_be_forged(learner):
    yes = learner.always_equal()
    assert yes != 3 and not (yes == 3), "a learner object is equal only to itself"
    half = learner.lying_float()
    assert type(half) is float and half == 0.25 and half != 0.3, "a float subclass crosses as its value"


def test_a_time_limit_ends_the_learners_interpreter_and_the_next_call_gets_a_new_one(learner):
    counter = learner.Counter()
    with pytest.raises(TestTimeout):
        with alarm(0.5):
            learner.spin()
    assert learner.same(4) == 4, "a fresh interpreter, loaded again"
    with pytest.raises(boundary.BoundaryError, match="started again"):
        counter.bump()


def test_a_learner_that_ends_python_is_a_failed_call(learner):
    with pytest.raises(boundary.LearnerGone):
        learner.die()
    assert learner.same("again") == "again"


class _Scripted:
    """A channel whose learner answers are given: for malformed messages."""

    def __init__(self, answers):
        self.answers, self.sent = list(answers), []

    def send(self, data):
        self.sent.append(data)

    def recv(self):
        return self.answers.pop(0) if self.answers else None


@pytest.mark.parametrize("answer", [
    b"not json", b"[1, 2]", b'{"op": 3}', b'{"op": "return", "value": ["zz", 1]}',
    b'{"op": "return", "value": ["h", "x", 3, []]}', b'{"op": "return", "value": ["r", 99]}',
    b'{"op": "return", "value": ["a", 0, "|O", [1], ""]}', b'{"op": "raise", "value": 3}',
    b'{"op": "return", "value": 1, "changed": [[7, 1]]}', b'{"op": "return", "value": ["g", 0, "os", {}]}',
    b'{"op": "return", "value": ["F", "1e999"]}', b"[" * 100000 + b"]" * 100000,
])
def test_a_malformed_answer_is_a_boundary_error_never_a_value(answer):
    side = boundary.TestsSide(_Scripted([answer]))
    with pytest.raises(boundary.BoundaryError):
        side.request("call", None, (1,))


def test_a_request_of_the_learner_for_a_method_the_object_lacks_is_refused():
    class Source:
        def uniform(self):
            return 0.5

        def _private(self):
            return "secret"

    source = Source()
    sent = []
    side = boundary.TestsSide(_Scripted([]))
    side.send = lambda message, enc=None: sent.append(message)
    number = side.reference(source)[1]
    side.serve({"op": "method", "target": ["x", number], "args": ["t"], "name": "_private"})
    side.serve({"op": "method", "target": ["x", number], "args": ["t"], "name": "__init__"})
    side.serve({"op": "method", "target": ["x", number], "args": ["t"], "name": "uniform"})
    assert [m["op"] for m in sent] == ["raise", "raise", "return"] and sent[2]["value"] == 0.5
    assert "secret" not in json.dumps(sent)


def test_the_learners_interpreter_is_sandboxed(tmp_path):
    """What the operating system takes away (Linux): writes outside the folder, reads of the course, sockets,
    new processes. Each is asked of the learner's interpreter, which reports what it could do."""
    probe = textwrap.dedent(f'''
        import os, socket, subprocess
        def attempts():
            out = {{}}
            for name, act in [
                ("write outside", lambda: open({str(tmp_path / "outside")!r}, "w").write("x")),
                ("write inside", lambda: open("inside", "w").write("x")),
                ("read the checkout", lambda: open({str(learnerproc.CHECKER.parent / "README.md")!r}).read()),
                ("socket", lambda: socket.socket()),
                ("process", lambda: subprocess.run(["true"])),
                ("signal the parent", lambda: os.kill(os.getppid(), 0)),
            ]:
                try:
                    act()
                    out[name] = "done"
                except Exception as exc:
                    out[name] = type(exc).__name__
            return out
    ''')
    side = separated.Learner(learnerproc.connector(tmp_path / "checks"), {"probe.py": probe}, "probe.py", 10)
    assert side.load()["status"] == "ok"
    modules = {}
    side.install(modules)
    got = modules["probe"].attempts()
    held = side.sandbox
    side.finish()
    if sys.platform != "linux" or not any(h.startswith("landlock") for h in held) or "seccomp" not in held:
        pytest.skip(f"this system's sandbox layers: {held}")
    assert got["write inside"] == "done"
    assert {k: v for k, v in got.items() if k != "write inside"} == {
        "write outside": "PermissionError", "read the checkout": "PermissionError", "socket": "PermissionError",
        "process": "PermissionError", "signal the parent": "PermissionError"}, got
    assert not (tmp_path / "outside").exists()


def test_many_calls_cross_once_and_mean_the_comprehension(learner):
    from checker.calls import calls

    counter = learner.Counter()
    assert calls(counter.bump, [()] * 5) == [1, 2, 3, 4, 5] and counter.n == 5
    assert calls(learner.same, [(1,), ("a",), (None,)]) == [1, "a", None]
    xs = [3, 1, 2]
    assert calls(learner.sort_in_place, [(xs,)] * 2) == [None, None] and xs == [1, 2, 3]
    with pytest.raises(ValueError, match="second"):
        calls(learner.fail, [("second",)])
    assert calls(len, [("ab",), ((),)]) == [2, 0], "in one interpreter it is the comprehension"
