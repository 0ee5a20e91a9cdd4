"""siamese_network's gradients: lit_torch equals torch in float64, and lit_torch's float32 equals that float64 truth.

pytorch/examples' siamese_network runs one ResNet-18 twice (two images), in training mode, with in-place ReLUs,
BatchNorm, max pooling, adaptive average pooling, `torch.cat`, a sigmoid and BCELoss. Under the probe its float32
gradients differed from torch's by 9.3e-3 (relative to the largest). The cause is one ReLU: in layer2's second
block, the first forward, sample 1, channel 55, the input to the ReLU is +1.17e-6 in float64; lit_torch's float32
gives +8.5e-7 and torch's -5.1e-7 (the convolution's sums are rounded in another order). So torch's ReLU drops that
element's gradient, and BatchNorm's backward (which mixes every element of a channel) spreads the difference over
the channel and into every layer before it. Against the float64 oracle (the probe's `lit:float64` / `torch:float64`,
same float32 weights and inputs), lit_torch's float32 gradients are off by 3.8e-6 and torch's by 9.3e-3.

This test runs the same network through the probe on seeded draws (no pytorch/examples checkout needed): float64
lit_torch must equal float64 torch to 1e-10, and each framework's float32 must be near that truth; which one a tie
flips depends on the draws, so only lit_torch's distance is asserted tightly."""
import importlib.util, os, subprocess, sys
from pathlib import Path
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(importlib.util.find_spec('torch') is None, reason='real torch (the oracle) is not installed')

SCRIPT = '''
import torch, torch.nn as nn, torchvision
resnet = torchvision.models.resnet18(weights=None)
resnet.conv1 = nn.Conv2d(1, 64, kernel_size=(7, 7), stride=(2, 2), padding=(3, 3), bias=False)
trunk = nn.Sequential(*list(resnet.children())[:-1])
head = nn.Sequential(nn.Linear(1024, 256), nn.ReLU(inplace=True), nn.Linear(256, 1))
class Siamese(nn.Module):
    def __init__(self): super().__init__(); self.trunk, self.head = trunk, head
    def forward(self, a, b):
        f = lambda x: self.trunk(x).view(x.size(0), -1)
        return torch.sigmoid(self.head(torch.cat((f(a), f(b)), 1)))
model = Siamese().train()
images = torch.randint(0, 256, (2, 16, 1, 28, 28)).float()
target = torch.tensor([1.0, 0.0] * 8, dtype=torch.float)
nn.BCELoss()(model(images[0], images[1]).squeeze(), target).backward()
'''


def _probe(framework, tmp_path):
    script, out = tmp_path / 'siamese.py', tmp_path / f"{framework.replace(':', '_')}.npz"
    script.write_text(SCRIPT)
    paths = [str(ROOT / 'tests' / 'fake_torchvision')] + ([str(ROOT)] if framework.startswith('lit') else [])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths), OMP_NUM_THREADS='1')
    subprocess.run([sys.executable, str(ROOT / 'tests' / 'examples_probe.py'), framework, str(out), '1', str(script)],
                   cwd=tmp_path, env=env, check=True, capture_output=True, timeout=600)
    return dict(np.load(out))


def _grad_rel(a, b):
    n = int(b['n_grads'])
    assert int(a['n_grads']) == n > 60  # every parameter of the trunk and the head got a gradient
    return max(np.abs(a[f'grad{i}'] - b[f'grad{i}']).max() for i in range(n)) / max(np.abs(b[f'grad{i}']).max() for i in range(n))


@pytest.fixture(scope='module')
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('siamese')
    return {fw: _probe(fw, tmp) for fw in ('lit', 'torch', 'lit:float64', 'torch:float64')}


def test_float64_lit_torch_equals_torch(runs):
    lit, torch = runs['lit:float64'], runs['torch:float64']
    np.testing.assert_allclose(lit['out'], torch['out'], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(lit['losses'], torch['losses'], rtol=1e-12)
    assert _grad_rel(lit, torch) < 1e-10


def test_float32_gradients_near_the_float64_truth(runs):
    truth = runs['torch:float64']
    assert _grad_rel(runs['lit:float64'], runs['lit']) > 1e-9  # the oracle really ran in float64
    assert _grad_rel(runs['lit'], truth) < 1e-4
    assert _grad_rel(runs['torch'], truth) < 5e-2  # torch's float32 may take the other side of a ReLU tie
