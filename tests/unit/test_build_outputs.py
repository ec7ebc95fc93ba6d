"""The build's outputs the runtime reads are described twice, once per language: tools/build_outputs.py (the build
steps write through it) and web/src/shared/build-outputs.js (the worker and the build's Node scripts read through it).
These tests hold the two to the same names and the same wheels list, by running the JavaScript module in Node."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tools import build_outputs  # noqa: E402
from tools.build_outputs import WheelsList  # noqa: E402

JS = REPO / "web" / "src" / "shared" / "build-outputs.js"
needs_node = pytest.mark.skipif(not shutil.which("node"), reason="node runs the JavaScript side")


def node(script: str) -> object:
    code = f"import * as outputs from {json.dumps(JS.as_uri())};\n{script}"
    out = subprocess.run(["node", "--input-type=module", "-e", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@needs_node
def test_both_sides_name_the_same_files():
    names = node("console.log(JSON.stringify(outputs.OUTPUTS));")
    assert names == {"wheelsList": build_outputs.WHEELS_LIST, "pyodideLock": build_outputs.PYODIDE_LOCK,
                     "wheelsPack": build_outputs.WHEELS_PACK,
                     "judgeZip": build_outputs.JUDGE_ZIP, "coreGz": build_outputs.CORE_GZ,
                     "stdlibStart": build_outputs.STDLIB_START, "coreZst": build_outputs.CORE_ZST,
                     "loaderZst": build_outputs.LOADER_ZST,
                     "loaderGz": build_outputs.LOADER_GZ, "compactSuffix": build_outputs.COMPACT_SUFFIX,
                     "authoringDir": build_outputs.AUTHORING_DIR, "zstdWasm": build_outputs.ZSTD_WASM,
                     "zstdLicence": build_outputs.ZSTD_LICENCE, "mathFont": build_outputs.MATH_FONT}


@needs_node
def test_both_sides_share_the_runtime_settings_and_the_starts():
    assert node("console.log(JSON.stringify(outputs.RUNTIME));") == build_outputs.RUNTIME
    chosen = node("console.log(JSON.stringify(['start=cold', 'start=compact', 'start=warm', 'x', ''].map("
                  "outputs.startChosen).concat(outputs.STARTS.map(outputs.startName))));")
    assert chosen == ["cold", "", "", "", "", "start=cold", "start=snapshot"], \
        "compact, a start of older builds, is none"


def test_the_judge_writes_where_the_snapshot_was_warmed():
    """checker/ imports nothing from outside itself, so this is what ties its WORKDIR to RUNTIME's (the snapshot's
    warm check writes there: tools/snapshot.mjs)."""
    from checker import bridge
    assert bridge.WORKDIR == build_outputs.RUNTIME["workDir"]


def test_the_service_worker_is_given_the_shared_names_and_no_one_writes_them_again(tmp_path):
    """sw.js gets the hand-off cache's name and the hash header from RUNTIME (tools/offline.py); the worker and the
    snapshot's script read them from build-outputs.js; none of them spells a value of its own."""
    from tools import offline
    offline.write(tmp_path)
    head = (tmp_path / "sw.js").read_text(encoding="utf-8").split("/**", 1)[0]
    assert f"const HANDOFF = {json.dumps(build_outputs.RUNTIME['handoffCache'])};" in head
    assert f"const HASH = {json.dumps(build_outputs.RUNTIME['hashHeader'])};" in head
    readers = [offline.SOURCE, *sorted((REPO / "web" / "src" / "worker").rglob("*.js")), REPO / "tools" / "snapshot.mjs"]
    spelt = [f"{path.relative_to(REPO)}: {value}" for path in readers for value in
             (build_outputs.RUNTIME[k] for k in ("handoffCache", "hashHeader", "workDir", "judgeDir"))
             if value in path.read_text(encoding="utf-8")]
    assert spelt == []


@needs_node
@pytest.mark.parametrize("written", [
    WheelsList("0.27.7", ("pytest-8.3.5-py3-none-any.whl", "pluggy-1.6.0-py3-none-any.whl")),
    WheelsList("0.27.7", ("pytest-8.3.5-py3-none-any.whl",)).packed(
        snapshot=build_outputs.snapshot_parts(), numpy=build_outputs.numpy_pack("2.0.2"), wheels_pack=build_outputs.WHEELS_PACK,
        snapshot_bytes=4_373_427, snapshot_size=25_165_824,
        numpy_dynlibs=("numpy/_core/_multiarray_umath.cpython-312-wasm32-emscripten.so",
                       "numpy/random/mtrand.cpython-312-wasm32-emscripten.so"),
        start_bytes=14_000_000, stdlib_bytes=661_394, stdlib=build_outputs.STDLIB_START,
        stdlib_rest=build_outputs.STDLIB_REST, numpy_rest=build_outputs.numpy_rest_pack("2.0.2"),
        later_stdlib=("statistics", "xml.dom"), later_numpy=("numpy.fft",), wheels_rest=build_outputs.WHEELS_REST,
        later_wheels=("_pytest.main",), snapshot_delta_bytes=3_820_316,
        snapshot_delta_sum=4_000_000_000, numpy_first_bytes=1_352_001, lock={"info": {"abi_version": "2026_0"}, "packages": {"numpy": {}}}),
    WheelsList("0.27.7", ("pytest-8.3.5-py3-none-any.whl",), optional=(build_outputs.OptionalPackage(
        "matplotlib", ("matplotlib", "mpl_toolkits"), ("matplotlib-3.8.4-x.whl", "six-1.16.0-py2.py3-none-any.whl"),
        123),)),
], ids=["wheels only", "with snapshot and packs", "with an optional package"])
def test_what_python_writes_javascript_reads(tmp_path, written):
    build_outputs.write_wheels_list(tmp_path, written)
    assert build_outputs.read_wheels_list(tmp_path) == written
    path = json.dumps(str(tmp_path / build_outputs.WHEELS_LIST))
    read = node(f"""import {{ readFileSync }} from "node:fs";
        console.log(JSON.stringify(outputs.readWheelsList(JSON.parse(readFileSync({path}, "utf8")))));""")
    assert read == {"pyodide": written.pyodide, "wheels": list(written.wheels), "snapshot": list(written.snapshot),
                    "numpyPack": written.numpy, "wheelsPack": written.wheels_pack,
                    "optional": [{"name": o.name, "imports": list(o.imports), "files": list(o.files), "bytes": o.bytes}
                                 for o in written.optional], "snapshotBytes": written.snapshot_bytes,
                    "snapshotSize": written.snapshot_size,
                    "numpyDynlibs": list(written.numpy_dynlibs), "startBytes": written.start_bytes,
                    "stdlibBytes": written.stdlib_bytes, "stdlib": written.stdlib,
                    "stdlibRest": written.stdlib_rest, "numpyRest": written.numpy_rest,
                    "laterStdlib": list(written.later_stdlib), "laterNumpy": list(written.later_numpy),
                    "wheelsRest": written.wheels_rest, "laterWheels": list(written.later_wheels),
                    "snapshotDeltaBytes": written.snapshot_delta_bytes, "snapshotDeltaSum": written.snapshot_delta_sum,
                    "numpyFirstBytes": written.numpy_first_bytes, "lock": written.lock or None}


@needs_node
def test_javascript_refuses_a_list_without_wheels():
    said = node("""try { outputs.readWheelsList({ snapshot: "x" }); console.log('"accepted"'); }
        catch (err) { console.log(JSON.stringify(err.message)); }""")
    assert said == f"{build_outputs.WHEELS_LIST}: no list of wheels"


def test_python_refuses_a_list_without_wheels(tmp_path):
    (tmp_path / build_outputs.WHEELS_LIST).write_text('{"pyodide": "0.27.7"}')
    with pytest.raises(ValueError, match="no list of wheels"):
        build_outputs.read_wheels_list(tmp_path)


@needs_node
def test_both_sides_refuse_a_snapshot_that_is_not_a_list_of_parts(tmp_path):
    said = node("""try { outputs.readWheelsList({ wheels: [], snapshot: "snapshot.bin.lz4" }); console.log('"accepted"'); }
        catch (err) { console.log(JSON.stringify(err.message)); }""")
    assert said == f"{build_outputs.WHEELS_LIST}: snapshot is not a list of file names"
    (tmp_path / build_outputs.WHEELS_LIST).write_text('{"wheels": [], "snapshot": "snapshot.bin.lz4"}')
    with pytest.raises(ValueError, match="snapshot is not a list of file names"):
        build_outputs.read_wheels_list(tmp_path)


@needs_node
def test_both_sides_refuse_extension_modules_that_are_not_a_list_of_paths(tmp_path):
    said = node("""try { outputs.readWheelsList({ wheels: [], numpy_dynlibs: "numpy/x.so" }); console.log('"accepted"'); }
        catch (err) { console.log(JSON.stringify(err.message)); }""")
    assert said == f"{build_outputs.WHEELS_LIST}: numpy_dynlibs is not a list of paths"
    (tmp_path / build_outputs.WHEELS_LIST).write_text('{"wheels": [], "numpy_dynlibs": [1]}')
    with pytest.raises(ValueError, match="numpy_dynlibs is not a list of paths"):
        build_outputs.read_wheels_list(tmp_path)


def test_the_snapshot_parts_are_named_in_order():
    names = build_outputs.snapshot_parts(3)
    assert names == ("snapshot-1-of-3.zst", "snapshot-2-of-3.zst", "snapshot-3-of-3.zst")
    assert len(build_outputs.snapshot_parts()) == build_outputs.SNAPSHOT_PARTS


def test_names_the_build_did_not_make_are_left_out(tmp_path):
    build_outputs.write_wheels_list(tmp_path, WheelsList("0.27.7", ("a.whl",)))
    assert json.loads((tmp_path / build_outputs.WHEELS_LIST).read_text()) == {"pyodide": "0.27.7", "wheels": ["a.whl"]}


def test_numpy_wheel_and_pack_names(tmp_path):
    lock = {"packages": {"numpy": {"file_name": "numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl",
                                   "version": "2.0.2"}}}
    (tmp_path / build_outputs.PYODIDE_LOCK).write_text(json.dumps(lock))
    assert build_outputs.numpy_wheel(tmp_path) == (lock["packages"]["numpy"]["file_name"], "2.0.2")
    assert build_outputs.numpy_pack("2.0.2") == "numpy-2.0.2-tl.pack.zst"


@needs_node
@pytest.mark.parametrize("wheel", ["python_dateutil-2.9.0.post0-py2.py3-none-any.whl", "packaging-25.0-py3-none-any.whl",
                                   "PyYAML-6.0-cp312-cp312-pyodide_2024_0_wasm32.whl"])
def test_both_sides_name_a_wheels_package_alike(wheel):
    from tools import pyodide_assets
    assert node(f"console.log(JSON.stringify(outputs.distribution({json.dumps(wheel)})));") \
        == pyodide_assets.distribution(wheel)


def test_python_refuses_a_malformed_optional_package(tmp_path):
    (tmp_path / build_outputs.WHEELS_LIST).write_text('{"wheels": [], "optional": [{"name": "matplotlib"}]}')
    with pytest.raises(ValueError, match="optional: malformed entry"):
        build_outputs.read_wheels_list(tmp_path)


def test_the_dependency_closure_follows_the_lock_file_transitively():
    lock = {"packages": {"a": {"depends": ["b", "c"]}, "b": {"depends": ["d"]}, "c": {"depends": ["d"]},
                         "d": {"depends": []}, "unrelated": {"depends": []}}}
    assert build_outputs.dependency_closure(lock, "a") == ["a", "b", "c", "d"]
    lock["packages"]["b"]["depends"].append("missing")
    with pytest.raises(ValueError, match="no package 'missing' \\(a dependency of a\\)"):
        build_outputs.dependency_closure(lock, "a")


def test_the_optional_files_are_every_file_of_every_optional_package():
    two = (build_outputs.OptionalPackage("a", ("a",), ("a.whl", "six.whl")),
           build_outputs.OptionalPackage("b", ("b",), ("b.whl", "six.whl")))
    assert WheelsList("0.27.7", ("pytest.whl",), optional=two).optional_files() == {"a.whl", "b.whl", "six.whl"}
    assert WheelsList("0.27.7", ("pytest.whl",)).optional_files() == set()


@needs_node
def test_both_sides_refuse_later_modules_that_are_not_a_list_of_names(tmp_path):
    said = node("""try { outputs.readWheelsList({ wheels: [], later_numpy: "numpy.fft" }); console.log('"accepted"'); }
        catch (err) { console.log(JSON.stringify(err.message)); }""")
    assert said == f"{build_outputs.WHEELS_LIST}: later_numpy is not a list of module names"
    (tmp_path / build_outputs.WHEELS_LIST).write_text('{"wheels": [], "later_stdlib": [1]}')
    with pytest.raises(ValueError, match="later_stdlib is not a list of module names"):
        build_outputs.read_wheels_list(tmp_path)


def test_the_lock_files_part_holds_what_loadpackage_can_need_and_its_info():
    lock = {"info": {"abi_version": "2026_0"}, "packages": {
        "matplotlib": {"depends": ["numpy", "six"]}, "numpy": {"depends": []}, "six": {"depends": []},
        "scipy": {"depends": ["numpy"]}, "pytest": {"depends": ["pluggy"]}, "pluggy": {"depends": []}}}
    part = build_outputs.lock_subset(lock, ["numpy", "matplotlib"])
    assert part["info"] == lock["info"]
    assert sorted(part["packages"]) == ["matplotlib", "numpy", "six"]
