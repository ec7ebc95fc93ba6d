"""Example cells run at build time: forked from a server (authoring/examples.py, the build's runner) or as plain
`python -c` (mdwidgets/examples.py, the widgets' own), alike."""
import pytest

from authoring import examples, forkserver
from mdwidgets import examples as plain


@pytest.fixture(params=["forked", "no server", "plain"])
def way(request, monkeypatch):
    if request.param == "no server":
        monkeypatch.setattr(examples, "_fork_server", lambda: None)
    elif request.param == "plain":
        monkeypatch.setattr(examples, "run", plain.run_plain)
    elif not forkserver.AVAILABLE:
        pytest.skip("needs os.fork")
    return request.param


def test_the_widgets_run_examples_with_the_runner_installed(monkeypatch):
    monkeypatch.setattr(plain, "_runner", [plain.run_plain])
    assert plain.run("print(1)", {}).stdout == "1\n"
    examples.install()
    assert plain._runner[0] is examples.run


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
