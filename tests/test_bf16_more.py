"""bfloat16 against torch where the ops' own files do not reach: histc's bins and division rounded toward zero.
torch's CPU kernels compute bfloat16 in float32 and round once, except where a kernel rounds each step (histc)."""
import numpy as np
import pytest

torch = pytest.importorskip('torch')
import lit_torch as lt


def _pair(x):
    return torch.tensor(x).bfloat16(), lt.tensor(x).bfloat16()

@pytest.mark.parametrize('seed', range(6))
def test_histc_bins_bfloat16_as_torch(seed):
    "torch's histc kernel takes its bounds and each step of the bin index in bfloat16; so does lit_torch's."
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(300) * rng.uniform(0.5, 10)).astype(np.float32)
    t, l = _pair(x)
    for bins, lo, hi in ((17, 0, 0), (23, -1.3, 2.7), (5, -0.1, 0.1)):
        a, b = torch.histc(t, bins, lo, hi), lt.histc(l, bins, lo, hi)
        assert str(b.dtype) == 'torch.bfloat16'
        np.testing.assert_array_equal(b.float().numpy(), a.float().numpy())

def test_div_trunc_bfloat16_as_torch():
    "bfloat16 took the integer branch (floor, then a correction): 4 where torch gives 5."
    rng = np.random.default_rng(0)
    x, y = (rng.standard_normal((2, 4000)) * 50).astype(np.float32)
    (tx, lx), (ty, ly) = _pair(x), _pair(y)
    a, b = torch.div(tx, ty, rounding_mode='trunc'), lt.div(lx, ly, rounding_mode='trunc')
    assert str(b.dtype) == 'torch.bfloat16'
    np.testing.assert_array_equal(b.float().numpy(), a.float().numpy())
