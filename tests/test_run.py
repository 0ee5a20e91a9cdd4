"""The drop-in launcher: unmodified PyTorch scripts under `python -m lit_torch.run` (and `lit-torch-run`) import lit_torch."""
import os, subprocess, sys, textwrap
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parent.parent

def launch(script, *args, tmp_path, module=False, timeout=300):
    "Run `script` (source text) through the launcher in a fresh interpreter; returns the CompletedProcess."
    (tmp_path / 'prog.py').write_text(textwrap.dedent(script))
    env = {**os.environ, 'PYTHONPATH': os.pathsep.join([str(ROOT), os.environ.get('PYTHONPATH', '')])}
    env.pop('LIT_TORCH_RUN', None)
    target = ['-m', 'prog'] if module else [str(tmp_path / 'prog.py')]
    return subprocess.run([sys.executable, '-m', 'lit_torch.run', *target, *args], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=timeout)

TRAIN = """
    import sys
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    from torch.nn import functional as F2
    import torch.optim as optim
    from torch.utils.data import DataLoader, TensorDataset
    import torch.utils.data
    import torch.backends.cudnn
    import torch.backends.cudnn as cudnn
    cudnn.benchmark = True
    torch.manual_seed(0)
    x, y = torch.randn(64, 5), torch.randint(0, 3, (64,))
    model = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 3))
    opt = optim.SGD(model.parameters(), lr=0.1)
    for xb, yb in DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True):
        loss = F.cross_entropy(model(xb), yb)
        opt.zero_grad(); loss.backward(); opt.step()
    assert F is F2 is sys.modules['torch.nn.functional']
    print('name', __name__)
    print('argv', sys.argv[1:])
    print('modules', torch.__name__, nn.__name__, F.__name__, torch.utils.data.__name__, torch.backends.cudnn.__name__)
    print('same', torch.nn is __import__('lit_torch').nn, cudnn.benchmark)
    print('loss', loss.item())
"""

def test_unmodified_script_runs_on_lit_torch(tmp_path):
    r = launch(TRAIN, '--epochs', '2', 'x y', tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    out = dict(line.split(' ', 1) for line in r.stdout.splitlines())
    assert out['name'] == '__main__'
    assert out['argv'] == "['--epochs', '2', 'x y']"
    assert out['modules'] == 'lit_torch lit_torch.nn lit_torch.nn.functional lit_torch.utils.data lit_torch.backends.cudnn'
    assert out['same'] == 'True True'
    assert 0 < float(out['loss']) < 5

def test_sys_path_and_argv0_like_python(tmp_path):
    (tmp_path / 'sibling.py').write_text("VALUE = 42\n")
    r = launch("""
        import sys, sibling
        print(sys.argv[0].endswith('prog.py'), sys.path[0] == __import__('os').path.dirname(__file__), sibling.VALUE)
    """, tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.split() == ['True', 'True', '42']

def test_unknown_torch_module_names_itself(tmp_path):
    r = launch("import torch\nimport torch.xyz\n", tmp_path=tmp_path)
    assert r.returncode != 0
    assert "ModuleNotFoundError: No module named 'torch.xyz'" in r.stderr

def test_exit_code_and_module_mode(tmp_path):
    r = launch("import torch, sys\nsys.exit(3)\n", tmp_path=tmp_path)
    assert r.returncode == 3
    r = launch("import torch, sys\nprint(__name__, torch.__name__, sys.argv[1:])\n", 'a', tmp_path=tmp_path, module=True)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.split() == ['__main__', 'lit_torch', "['a']"]

def test_spawned_children_import_lit_torch_too(tmp_path):
    r = launch("""
        import torch
        import torch.multiprocessing as mp

        def work(i, q):
            q.put((i, torch.__name__, (torch.ones(2) * i).tolist()))

        if __name__ == '__main__':
            ctx = mp.get_context('spawn')
            q = ctx.SimpleQueue()
            mp.spawn(work, args=(q,), nprocs=2)
            print(sorted(q.get() for _ in range(2)))
    """, tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.strip() == "[(0, 'lit_torch', [0.0, 0.0]), (1, 'lit_torch', [1.0, 1.0])]"

def test_usage_without_a_script():
    r = subprocess.run([sys.executable, '-m', 'lit_torch.run'], capture_output=True, text=True, cwd=ROOT,
                       env={**os.environ, 'PYTHONPATH': str(ROOT)})
    assert r.returncode == 2 and 'usage: python -m lit_torch.run' in r.stdout

HOOK = """
import importlib, sys
import lit_torch, lit_torch.run as run
run.install()
import torch
assert torch is lit_torch and importlib.import_module('torch.nn.modules.linear') is lit_torch.nn.modules.linear
try: importlib.import_module('torch.xyz'); raise SystemExit('no error')
except ModuleNotFoundError as e: assert e.name == 'torch.xyz' and "No module named 'torch.xyz'" in str(e)
run.uninstall()
assert 'torch' not in sys.modules
print('ok')
"""

def test_hook_install_and_uninstall():
    r = subprocess.run([sys.executable, '-c', HOOK], capture_output=True, text=True, cwd=ROOT, env={**os.environ, 'PYTHONPATH': str(ROOT)})
    assert r.returncode == 0 and r.stdout.strip() == 'ok', r.stderr[-3000:]

def test_refuses_after_a_real_torch():
    pytest.importorskip('torch')
    code = "import torch, lit_torch.run as run\ntry: run.install()\nexcept RuntimeError as e: print('refused' if 'already imported' in str(e) else e)"
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, cwd=ROOT, env={**os.environ, 'PYTHONPATH': str(ROOT)})
    assert r.stdout.strip() == 'refused', r.stderr[-3000:]
