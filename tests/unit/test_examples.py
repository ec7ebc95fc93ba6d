"""Example cells run at build time (mdwidgets/examples.py): forked from a server, or as plain `python -c`, alike."""
import pytest

from authoring import forkserver
from mdwidgets import examples


@pytest.fixture(params=["forked", "plain"])
def way(request, monkeypatch):
    if request.param == "plain":
        monkeypatch.setattr(examples, "_fork_server", lambda: None)
    elif not forkserver.AVAILABLE:
        pytest.skip("needs os.fork")
    return request.param


def test_output_files_and_exit_status(way):
    files = {"pkg/mod.py": "VALUE = 41\n"}
    proc = examples.run("from pkg.mod import VALUE\nprint(VALUE + 1)\n", files)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "42\n", "")


def test_an_exception_is_reported_as_python_c_reports_it(way):
    proc = examples.run("x = 1\n\nraise ValueError('no')\n", {})
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert 'File "<string>", line 3, in <module>' in lines[1]
    assert lines[-1] == "ValueError: no"


def test_sys_exit(way):
    assert examples.run("import sys\nsys.exit('stopped here')\n", {}).stderr == "stopped here\n"
    assert examples.run("import sys\nsys.exit(3)\n", {}).returncode == 3
    assert examples.run("import sys\nsys.exit()\n", {}).returncode == 0


def test_a_plot_draws_on_agg_and_runs_do_not_share_state(way):
    plot = "import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()\nprint(len(plt.get_fignums()))\n"
    assert examples.run(plot, {}).stdout == "1\n"
    assert examples.run(plot, {}).stdout == "1\n", "the second run starts without the first one's figure"
    assert examples.run("import sys\nprint('pkg' in sys.modules)\n", {}).stdout == "False\n"
