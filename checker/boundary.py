"""The trust boundary: learner code in one interpreter, the hidden tests and the verdict in another.

Only plain data crosses, as JSON: numbers, strings, bytes, lists, tuples, dicts, sets, numpy arrays and scalars,
and the state of a random generator (numpy's `Generator`, `random.Random`). Anything else stays where it was
made and is seen from the other side through a stand-in:

- an object of the tests (a `UniformSource` that counts draws, a callback) reaches learner code as a `Proxy`:
  only its public methods and the special methods in CALLED_SPECIALS can be called, each call runs on the
  tests' side and its result comes back as data; no attribute of it can be read, so no walk leads back;
- an object of the learner's (a `PCG32` instance, a function, a class, a module) reaches the tests as a
  `Handle`: its methods can be called and its attributes read, each answer again as data. A handle is equal
  only to itself: a learner's object cannot make `==` true.

What a call means keeps its meaning across the boundary. Every list, dict, set, array and generator an argument
holds is numbered on the way out; the answer refers back to the caller's own object where learner code returned
it (`residual(p, p) is p` stays true for a mutant that returns its argument), and every such object the callee
changed in place is written back into the caller's (a sort in place, a generator advanced). An exception keeps
its type name and message, and the learner's frames (under the names the learner knows) come with it.

Neither side trusts the other's messages: a malformed one is a `BoundaryError` in the tests, a failed test, never
a pass. Standard library only (numpy when present): these files ship to the browser with the judge.

The boundary is three modules: checker/boundary_codec.py (values, errors, the message loop both sides share),
checker/boundary_tests.py (`TestsSide`, `Handle`, `RemoteModule`) and checker/boundary_learner.py (`LearnerSide`,
`Proxy`). This one names their public parts, so `from checker import boundary` is the one import the rest of the
judge and its tests need.
"""
from __future__ import annotations

from .boundary_codec import (CALLED_SPECIALS, FRAME_CAP, MESSAGE_CAP, REMOTE_BUILTINS, TEXT_CAP,  # noqa: F401
                             BoundaryError, LearnerGone, Side)
from .boundary_learner import LearnerSide, Proxy, vars_of  # noqa: F401
from .boundary_tests import Handle, RemoteModule, TestsSide  # noqa: F401
