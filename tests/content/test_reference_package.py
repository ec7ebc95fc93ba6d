"""The reference library `tinyllm`, generated from the exercises' references (tools/reference_package.py), works as
one package: every module of it imports in a fresh interpreter, each with what it imports of the others. Read from
the manifests: nothing here names an exercise."""
import subprocess
import sys

from tools import reference_package


def test_the_generated_package_imports_whole(tmp_path):
    written = reference_package.write(tmp_path)
    modules = [path.removesuffix(".py").replace("/", ".") for path in written]
    if not modules:
        return  # a course with no module of the tinyllm package yet
    code = "import importlib, sys\nfor name in sys.argv[1:]:\n    importlib.import_module(name)\nprint('ok')\n"
    proc = subprocess.run([sys.executable, "-c", code, *modules], cwd=tmp_path, capture_output=True, text=True,
                          env={"PYTHONPATH": str(tmp_path)})
    assert proc.stdout.strip() == "ok", proc.stderr
