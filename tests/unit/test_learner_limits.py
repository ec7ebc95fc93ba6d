"""The learner's process has a memory limit and its folder a quota as a whole (checker/sandbox.py, learnerproc.py).

Each test starts a real learner process and asks its code to take more than a check may: memory past
sandbox.MEMORY_CAP, files past FOLDER_FILES, bytes past FOLDER_BYTES (in files each under the per-file cap).
Every such attempt fails in the learner's code or ends its process with a message that names the limit, and the
next call gets a process that works. The quota is the folder's tmpfs where the kernel gives one ("quota"), else
the tests' side's count from outside (`FolderWatch`), tested here on its own.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from checker import boundary, learnerproc, sandbox, separated

LEARNER = textwrap.dedent('''
    import os
    import numpy as np

    kept = []

    def same(x):
        return x

    def array(n):
        return np.ones(n).sum()

    def grow():
        while True:
            kept.append(bytearray(10 ** 7))

    def answer_too_large():
        return np.zeros(300_000_000, dtype=np.uint8)

    def files(n):
        os.makedirs("many", exist_ok=True)
        for i in range(n):
            with open(f"many/{i}", "w") as f:
                f.write("x")
        return n

    def megabytes(n, per_file):
        for i in range(0, n, per_file):
            with open(f"part{i}", "wb") as f:
                for _ in range(per_file):
                    f.write(b"x" * (1 << 20))
        return n
''')


@pytest.fixture
def learner(tmp_path):
    side = separated.Learner(learnerproc.connector(tmp_path), {"m.py": LEARNER}, "m.py", 20)
    assert side.load()["status"] == "ok"
    modules = {}
    side.install(modules)
    yield modules["m"], side
    side.finish()


def test_memory_past_the_limit_is_a_memory_error_in_the_learners_code(learner):
    m, side = learner
    held = side.sandbox
    if "memory" not in held:
        pytest.skip(f"this system's sandbox layers: {held}")
    assert m.array(1000) == 1000.0
    with pytest.raises(MemoryError):
        m.array(sandbox.MEMORY_CAP // 8 + 1)  # float64: one more element than the whole limit holds
    with pytest.raises(MemoryError):
        m.grow()
    assert m.same(3) == 3, "the learner's process still answers"


def test_an_answer_that_memory_cannot_hold_ends_the_learner_with_a_clear_message(learner):
    m, side = learner
    held = side.sandbox
    if "memory" not in held:
        pytest.skip(f"this system's sandbox layers: {held}")
    with pytest.raises(boundary.LearnerGone, match=f"more memory than a check allows \\({sandbox.MEMORY_CAP >> 20} MB"):
        m.answer_too_large()
    assert m.same("again") == "again", "the next call gets a fresh process"
    assert "more memory than a check allows" in side.over_limit(), "and the check is not a pass"


def _refused(call, side) -> str:
    """What stopped a call that writes past the folder's quota: the tmpfs's error, the watch's LearnerGone, or
    (the watch counting only now and then) the count the check makes at its end."""
    try:
        call()
    except (OSError, boundary.LearnerGone) as exc:
        return f"{type(exc).__name__}: {exc}"
    return side.over_limit() or "nothing"


def test_the_folder_quota_counts_files_as_a_whole(learner):
    m, side = learner
    if sys.platform != "linux":
        pytest.skip("the quota is measured on Linux")
    assert m.files(10) == 10
    said = _refused(lambda: m.files(sandbox.FOLDER_FILES + 10), side)
    assert ("No space left" if "quota" in side.sandbox else "1000 files and folders in all") in said, said


def test_the_folder_quota_counts_bytes_as_a_whole_not_per_file(learner):
    m, side = learner
    if sys.platform != "linux":
        pytest.skip("the quota is measured on Linux")
    per_file = (sandbox.FILE_SIZE_CAP >> 20) // 2  # each file well under the per-file limit
    said = _refused(lambda: m.megabytes((sandbox.FOLDER_BYTES >> 20) * 2, per_file), side)
    assert ("No space left" if "quota" in side.sandbox else "64 MB in all") in said, said
    assert m.same(1) == 1


def test_folder_over_counts_files_and_the_bytes_they_occupy(tmp_path):
    (tmp_path / "a").mkdir()
    for i in range(5):
        (tmp_path / "a" / str(i)).write_bytes(b"x" * 5000)
    assert learnerproc.folder_over(tmp_path, most_bytes=1 << 20, most_files=6) == ""
    assert "(5 files and folders in all)" in learnerproc.folder_over(tmp_path, most_bytes=1 << 20, most_files=5)
    assert "(0 MB in all)" in learnerproc.folder_over(tmp_path, most_bytes=10_000, most_files=100)
    with open(tmp_path / "sparse", "wb") as f:
        f.truncate(1 << 30)  # a gigabyte long, and nothing on disk
    assert learnerproc.folder_over(tmp_path, most_bytes=1 << 20, most_files=100) == ""
    (tmp_path / "link").symlink_to("/")
    assert learnerproc.folder_over(tmp_path, most_bytes=1 << 20, most_files=100) == "", "a link is not followed"


def test_the_watch_ends_a_process_past_its_folders_quota(tmp_path):
    """Where the folder is not a tmpfs of its own: a process that keeps writing small files is ended, and says
    why, within a few of the watch's counts."""
    proc = subprocess.Popen([sys.executable, "-c", "import itertools\nfor i in itertools.count():\n"
                             "    open(f'f{i}', 'w').write('x' * 100)\n"], cwd=tmp_path)
    watch = learnerproc.FolderWatch(tmp_path, proc, 1 << 20, 50)
    watch.start()
    try:
        proc.wait(timeout=20)
    finally:
        proc.kill()
        watch.stopped.set()
    assert proc.returncode != 0 and "50 files" in watch.exceeded
    assert len(list(tmp_path.iterdir())) < 50 + 20_000, "stopped soon after it went past"


def test_a_child_past_its_quota_says_so_when_its_channel_closes(tmp_path):
    child = learnerproc.spawn(tmp_path / "learner")
    child.watch.exceeded = learnerproc.quota_message("64 MB")
    child.proc.kill()
    deadline = time.monotonic() + 10
    while child.proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    with pytest.raises(boundary.LearnerGone, match="wrote more than a check's folder may hold"):
        while True:  # the hello, if it came first, then the end
            if child.recv() is None:
                break
    child.close()
    assert not Path(tmp_path / "learner").exists()


# ---- as a check's verdict ----------------------------------------------------------------------------------------

SUITE = {"test_m.py": "from m import f\n\n\ndef test_f():\n    assert f() == 1\n"}


def check(tmp_path, code: str) -> dict:
    from checker import judge

    return judge.check(tests=SUITE, files={"m.py": textwrap.dedent(code)}, learner="m.py", names=["test_f"],
                       workdir=str(tmp_path / "work"), time_limit=20,
                       separate=learnerproc.connector(tmp_path / "learners"))


def test_a_check_whose_code_fills_its_folder_or_memory_is_not_a_pass(tmp_path):
    folder = check(tmp_path, '''
        def f():
            for i in range(5000):
                with open(f"f{i}", "w") as out:
                    out.write("x")
            return 1
    ''')
    assert folder["status"] != "passed"
    said = folder["tests"][0]["message"]
    assert "No space left" in said or "1000 files and folders in all" in said, folder
    memory = check(tmp_path, '''
        def f():
            import numpy
            return numpy.ones(2 ** 30).size // 2 ** 30
    ''')
    assert memory["status"] != "passed" and "MemoryError" in memory["tests"][0]["message"], memory


def test_a_check_that_went_past_a_limit_unseen_until_its_end_is_an_error_naming_it(tmp_path, monkeypatch):
    """Where the watch counts the folder (no tmpfs), a check can end between two of its counts: the count the
    judge makes at the end still fails it, with every test an error naming the limit."""
    monkeypatch.setattr(learnerproc, "folder_over", lambda folder, *most: learnerproc.quota_message("64 MB"))
    result = check(tmp_path, "def f():\n    return 1\n")
    assert (result["status"], result["phase"]) == ("error", "tests")
    assert result["tests"][0]["outcome"] == "error" and "64 MB in all" in result["tests"][0]["message"]


def test_the_tests_side_of_a_separated_check_has_the_same_memory_limit():
    """ol/checkrun.py: the process that runs the hidden tests holds what learner code answers, so it gets the
    learner's limit too when the check is separated (an answer too large for it is an error, not a teacher's
    machine out of memory); `ol check`'s own check, one interpreter, keeps the machine's."""
    import resource

    from ol import checkrun

    if not hasattr(resource, "RLIMIT_AS"):
        pytest.skip("no address-space limit here")
    probe = ("import resource\n\ndef test_cap():\n"
             f"    assert resource.getrlimit(resource.RLIMIT_AS)[0] == {sandbox.MEMORY_CAP}\n")
    request = {"tests": {"test_cap.py": probe}, "files": {"m.py": "x = 1\n"}, "learner": "m.py", "names": ["test_cap"],
               "time_limit": 10}
    apart = checkrun.judge_in_child(request, tests=1, separate=True)
    assert apart.result["status"] == "passed", apart
    alone = checkrun.judge_in_child(request, tests=1, separate=False)
    assert alone.result["status"] == "failed", alone
