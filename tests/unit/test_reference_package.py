"""The reference library `tinyllm`, generated from the exercises' references, works as one package."""
import subprocess
import sys
from collections import Counter

from tools import reference_package


def test_the_generated_package_samples_p_end_to_end(tmp_path):
    written = reference_package.write(tmp_path)
    assert {"tinyllm/rand/pcg32.py", "tinyllm/prob/sampling.py", "tinyllm/prob/rejection.py"} <= set(written)
    # A fresh interpreter, so nothing of this test process leaks in: the pieces must import each other.
    code = """
import sys
from collections import Counter
from tinyllm.rand.pcg32 import PCG32
from tinyllm.prob.sampling import sample_categorical, UniformSource
from tinyllm.prob.rejection import rejection_sample, speculative_step, acceptance_probability
rng = PCG32(42, 54)
assert isinstance(rng, UniformSource)
p, q = [0.5, 0.25, 0.25, 0.0], [0.25, 0.5, 0.0, 0.25]
assert acceptance_probability(p, q) == 0.5
counts = Counter(speculative_step(p, q, sample_categorical(q, rng.uniform()), rng.uniform(), rng.uniform())[0]
                 for _ in range(4000))
assert counts[3] == 0 and abs(counts[0] / 4000 - 0.5) < 0.05, counts
token, tries = rejection_sample(p, [0.25] * 4, 2.0, rng)
assert p[token] > 0 and tries >= 1
print("ok")
"""
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                          env={"PYTHONPATH": str(tmp_path)})
    assert proc.stdout.strip() == "ok", proc.stderr
