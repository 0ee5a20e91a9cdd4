"""pytorch/examples run unmodified under the launcher and match real torch on the same draws.

Needs a checkout of github.com/pytorch/examples (set LIT_TORCH_EXAMPLES to it) and real torch; CI has
neither a network nor the checkout, so there every case skips with that reason. The runner, the
torchvision stand-in and the probe are benchmarks/run_examples.py, tests/fake_torchvision and
tests/examples_probe.py; `python benchmarks/run_examples.py` prints the table nbs/17a_runs_your_code shows."""
import importlib.util, os, sys
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = os.environ.get('LIT_TORCH_EXAMPLES', '')
HAVE_EXAMPLES = bool(EXAMPLES) and Path(EXAMPLES, 'mnist', 'main.py').exists()
HAVE_TORCH = importlib.util.find_spec('torch') is not None

pytestmark = [
    pytest.mark.skipif(not HAVE_EXAMPLES, reason='no pytorch/examples checkout: set LIT_TORCH_EXAMPLES to one (CI has no network)'),
    pytest.mark.skipif(not HAVE_TORCH, reason='real torch (the oracle) is not installed'),
]

sys.path.insert(0, str(ROOT / 'benchmarks'))
import run_examples  # noqa: E402

# generate.py reads the checkpoint its main.py wrote (run_program runs that main first when the checkpoint is missing)
NAMES = list(run_examples.PROGRAMS)


@pytest.fixture(scope='module')
def scratch(tmp_path_factory): return tmp_path_factory.mktemp('examples')


@pytest.mark.parametrize('name', NAMES)
def test_example(name, scratch):
    r = run_examples.run_program(name, EXAMPLES, scratch)
    assert r['runs'], f"{name} failed under lit-torch-run (rc {r['rc']}):\n{r['log']}"
    assert r.get('compared'), r.get('compare_error')
    if 'out' in r: assert isinstance(r['out'], float) and r['out'] < 1e-3, r
    if 'loss1' in r: assert r['loss1'] < 1e-4 * max(1.0, abs(r.get('loss1', 0))), r
    if 'grad' in r:
        assert isinstance(r['grad'], float), r
        if r['grad_rel'] >= 1e-4:
            # float32 summation order can put a ReLU's input on the other side of 0 in one framework (siamese_network:
            # +8.5e-7 in lit_torch, -5.1e-7 in torch, +1.17e-6 in float64); then the float64 oracle decides
            assert 'lit_vs_float64' in r, r.get('oracle_error', r)
            assert r['grad64_rel'] < 1e-10, r
            assert r['lit_vs_float64'] < 1e-4, r
