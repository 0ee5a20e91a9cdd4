"""The probe (tests/examples_probe.py) gives lit_torch and torch the same random draws, including the
attention-weight dropout that torch draws inside `F.scaled_dot_product_attention`: without that, a
Transformer in training mode starts from the same weights but its first output differs (by 0.7 in
word_language_model). Needs real torch; no pytorch/examples checkout."""
import importlib.util, os, subprocess, sys
from pathlib import Path
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(importlib.util.find_spec('torch') is None, reason='real torch (the oracle) is not installed')

SCRIPT = '''
import torch, torch.nn as nn
layer = nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, dropout=0.3)
enc = nn.TransformerEncoder(layer, 2)
mask = nn.Transformer.generate_square_subsequent_mask(7)
out = enc(torch.randn(7, 3, 16), mask=mask)
out.pow(2).mean().backward()
'''


def _probe(framework, tmp_path):
    script, out = tmp_path / 'tiny_transformer.py', tmp_path / f'{framework}.npz'
    script.write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT)] if framework == 'lit' else []))
    subprocess.run([sys.executable, str(ROOT / 'tests' / 'examples_probe.py'), framework, str(out), '1', str(script)],
                   cwd=tmp_path, env=env, check=True, capture_output=True, timeout=300)
    return dict(np.load(out))


def test_probe_shares_attention_dropout(tmp_path):
    a, b = _probe('lit', tmp_path), _probe('torch', tmp_path)
    assert str(a['error']) == str(b['error']) == ''
    np.testing.assert_allclose(a['out'], b['out'], atol=1e-5)
    assert int(a['n_grads']) == int(b['n_grads']) > 0
    for i in range(int(b['n_grads'])):
        np.testing.assert_allclose(a[f'grad{i}'], b[f'grad{i}'], rtol=1e-4, atol=1e-6)
