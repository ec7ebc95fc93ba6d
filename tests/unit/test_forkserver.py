"""The fork servers validation runs its children from (authoring/forkserver.py), with jobs of their own."""
import json
import os
import time
from pathlib import Path

import pytest

from authoring import forkserver

pytestmark = pytest.mark.skipif(not forkserver.AVAILABLE, reason="needs os.fork")
HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent


def env() -> dict[str, str]:
    return {**{k: v for k, v in os.environ.items() if k != "PYTHONHASHSEED"},
            "PYTHONPATH": os.pathsep.join([str(REPO), str(HERE)])}


@pytest.fixture()
def pool(tmp_path):
    with forkserver.Pool(2, "forkserver_jobs:draw", env(), ["numpy"], str(tmp_path)) as p:
        yield p


def drawn(server, folder: Path) -> dict:
    folder.mkdir()
    assert server.run(str(folder), timeout=60) == 0
    return json.loads((folder / "out.json").read_text())


def test_children_draw_afresh_and_run_in_their_folder(pool, tmp_path):
    a, b = drawn(pool.server(0), tmp_path / "a"), drawn(pool.server(0), tmp_path / "b")
    assert a["numpy"] != b["numpy"] and a["random"] != b["random"], "each fork reseeds its generators"
    assert a["numpy_preloaded"] and a["cwd"] == str(tmp_path / "a")
    assert a["hash"] == b["hash"], "one server, one hash seed (why a pool has several)"


def test_the_servers_of_a_pool_have_different_hash_seeds(pool, tmp_path):
    assert pool.server(2) is pool.server(0)
    assert drawn(pool.server(0), tmp_path / "a")["hash"] != drawn(pool.server(1), tmp_path / "b")["hash"]


def test_exit_codes_stderr_and_a_job_that_raises(tmp_path):
    with forkserver.Pool(1, "forkserver_jobs:die", env(), []) as dies, \
            forkserver.Pool(1, "forkserver_jobs:fail", env(), []) as fails:
        (tmp_path / "d").mkdir()
        (tmp_path / "f").mkdir()
        assert dies.server(0).run(str(tmp_path / "d"), timeout=60) == 3
        assert (tmp_path / "d" / "stderr.txt").read_text() == "about to go\n"
        assert fails.server(0).run(str(tmp_path / "f"), timeout=60) == 1
        assert "ValueError: a job that raises" in (tmp_path / "f" / "stderr.txt").read_text()


def test_a_child_past_its_timeout_is_killed(tmp_path):
    with forkserver.Pool(1, "forkserver_jobs:hang", env(), []) as hangs:
        (tmp_path / "h").mkdir()
        started = time.monotonic()
        assert hangs.server(0).run(str(tmp_path / "h"), timeout=1) is None
        assert time.monotonic() - started < 30


def test_a_server_that_is_gone_says_so(tmp_path):
    server = forkserver.Server("forkserver_jobs:draw", env(), [])
    server.proc.kill()
    server.proc.wait()
    (tmp_path / "a").mkdir()
    with pytest.raises(forkserver.ServerGone):
        for _ in range(3):  # the first write may still reach the pipe's buffer before the reader sees the end
            server.run(str(tmp_path / "a"), timeout=10)
            time.sleep(0.2)
    server.close()
