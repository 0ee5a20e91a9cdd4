"The package as a user gets it: a wheel that needs NumPy, safetensors and ml_dtypes (each imported only when first used: a safetensors file, a bfloat16 tensor), and nothing heavy at import."
import os, subprocess, sys, venv
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ['torch', 'cupy', 'mpi4py', 'matplotlib', 'fastcore', 'nbdev', 'safetensors', 'ml_dtypes']

def test_import_loads_nothing_heavy():
    code = 'import lit_torch, sys; print(" ".join(sorted(m for m in sys.modules if "." not in m)))'
    loaded = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True).stdout.split()
    assert not set(HEAVY) & set(loaded), set(HEAVY) & set(loaded)

_LAZY_METHODS_CHECK = """
import lit_torch, sys, importlib
from lit_torch._C import _LAZY, _LAZY_METHODS
T = lit_torch.Tensor
assert 'lit_torch._lazy_ops' not in sys.modules and 'lit_torch.linalg' not in sys.modules
before = dict(vars(T))
for module, names in _LAZY_METHODS.items():
    importlib.import_module(module)
    replaced = {n for n, v in vars(T).items() if before.get(n) is not v}
    assert replaced == set(names), (module, replaced ^ set(names))  # the table names exactly what the module sets
from lit_torch._C import _LAZY_OPS
public = {n for n in sys.modules['lit_torch._lazy_ops'].__all__ if not n[0].isupper()}
assert public == set(_LAZY_OPS), public ^ set(_LAZY_OPS)  # each top-level op the module defines is reachable from lit_torch
for name, module in _LAZY['lit_torch'].items():
    assert getattr(lit_torch, name) is not None and name in dir(lit_torch), name
print('ok')
"""

def test_lazy_methods_and_names_match_their_modules():
    "Each stand-in method is replaced when its module loads, and nothing else is: _C._LAZY_METHODS must list what the module sets."
    out = subprocess.run([sys.executable, '-c', _LAZY_METHODS_CHECK], capture_output=True, text=True)
    assert out.stdout.strip() == 'ok', out.stderr

@pytest.mark.timeout(600)
def test_wheel_in_clean_venv(tmp_path):
    "pip builds a wheel; in a fresh venv with only that wheel and its requirements, lit_torch imports and works."
    subprocess.run([sys.executable, '-m', 'pip', 'wheel', '-q', '--no-deps', '-w', tmp_path / 'wheels', str(ROOT)], check=True)
    wheel, = (tmp_path / 'wheels').glob('lit_torch-*.whl')
    venv.create(tmp_path / 'env', with_pip=True)
    py = tmp_path / 'env' / 'bin' / 'python'
    env = {k: v for k, v in os.environ.items() if k not in ('PYTHONPATH', 'VIRTUAL_ENV')}
    subprocess.run([py, '-m', 'pip', 'install', '-q', '--disable-pip-version-check', wheel], check=True, env=env)
    installed = subprocess.run([py, '-m', 'pip', 'list', '--format=freeze'], capture_output=True, text=True, check=True, env=env).stdout
    names = {l.split('==')[0].lower() for l in installed.split()} - {'pip', 'setuptools', 'wheel'}
    assert names - {'lit_torch', 'lit-torch'} == {'numpy', 'safetensors', 'ml_dtypes'} and len(names) == 4, names
    check = ("import io, lit_torch as t; t.manual_seed(0)\n"
             "for save, load in ((t.save, t.load), (t.serialization.save_safetensors, t.serialization.load_safetensors)):\n"
             "    b = io.BytesIO(); save({'w': t.ones(2)}, b); b.seek(0); assert load(b)['w'].tolist() == [1., 1.]\n"
             "print(t.float32, t.device('cpu:1'), t.__file__)")
    out = subprocess.run([py, '-c', check], capture_output=True, text=True, check=True, env=env, cwd=tmp_path).stdout
    assert out.startswith('torch.float32 cpu:1') and str(tmp_path / 'env') in out, out
