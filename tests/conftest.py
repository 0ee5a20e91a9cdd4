import os, sys
from pathlib import Path
import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))  # so tests can `import op_helpers`

# ---------------------------------------------------------------- CUDA without a GPU
# LIT_TORCH_EMULATE_CUDA=1 makes `import cupy` find tests/fake_cupy (a strict CuPy on NumPy, with emulated cuda:0 and
# cuda:1), here and in every process the tests start (DataLoader workers, mpiexec ranks). See tests/fake_cupy/README.md.
FAKE_CUPY = HERE / 'fake_cupy'
EMULATE_CUDA = os.environ.get('LIT_TORCH_EMULATE_CUDA', '') not in ('', '0')
if EMULATE_CUDA:
    sys.path.insert(0, str(FAKE_CUPY))
    os.environ['PYTHONPATH'] = os.pathsep.join([str(FAKE_CUPY)] + [p for p in [os.environ.get('PYTHONPATH')] if p])
    for _m in [m for m in sys.modules if m.split('.')[0] in ('cupy', 'cupyx')]: del sys.modules[_m]  # a real CuPy imported earlier


def _backend():
    "lit_torch's backend module (devices, array module), `lit_torch._C`: torch.device reports `torch` as its module, so look it up by name."
    import importlib
    return importlib.import_module('lit_torch._C')


def _check_tensor_placement():
    """Under emulation, every tensor lit_torch makes is checked as it is made: a CUDA tensor holds a device array
    on its own GPU, a CPU tensor no device array. An array that landed on the wrong GPU fails at the line that made it."""
    import lit_torch._tensor as T
    fill = getattr(T, '_fill', None)
    if fill is None or getattr(fill, '_checks_placement', False): return
    def checked_fill(t, data, device, grad_fn=None):
        if device.type == 'cuda':
            if type(data).__module__.split('.')[0] != 'cupy':
                raise AssertionError(f"a tensor on {device} was made around a {type(data).__module__}.{type(data).__name__}")
            if data.device.id != device.index:
                raise AssertionError(f"a tensor on {device} was made around an array on cuda:{data.device.id}")
        elif type(data).__module__.split('.')[0] == 'cupy':
            raise AssertionError(f"a tensor on {device} was made around a {type(data).__module__}.{type(data).__name__}")
        return fill(t, data, device, grad_fn)
    checked_fill._checks_placement = True
    T._fill = checked_fill

if EMULATE_CUDA: _check_tensor_placement()


@pytest.fixture
def fake_cupy(monkeypatch):
    """The emulated CuPy as `cupy` (and `cupyx`) for one test, in any session: lit_torch sees cuda:0 and cuda:1.
    Under LIT_TORCH_EMULATE_CUDA=1 it is the session's own `cupy`."""
    if EMULATE_CUDA:
        import cupy
        yield cupy
        return
    ours = lambda m: m.split('.')[0] in ('cupy', 'cupyx')
    saved = {m: sys.modules.pop(m) for m in [m for m in sys.modules if ours(m)]}
    sys.path.insert(0, str(FAKE_CUPY))
    try:
        import cupy
        be = _backend()
        monkeypatch.setattr(be, '_cupy_module', cupy)
        monkeypatch.setattr(be, '_cuda_generators', {})
        dp = sys.modules.get('lit_torch.nn.parallel._functions')
        if dp is not None and hasattr(dp, '_accelerator'): monkeypatch.setattr(dp, '_accelerator', [])
        yield cupy
    finally:
        sys.path.remove(str(FAKE_CUPY))
        for m in [m for m in sys.modules if ours(m)]: del sys.modules[m]
        sys.modules.update(saved)


# ---------------------------------------------------------------- nothing left in /dev/shm
# The run must leave no MPICH node file (mpich_shm_*) and no lit_torch block (lt*) behind: the session compares the
# names in /dev/shm at its end with those at its start, and fails if a new one is left that no process maps or holds
# open (so files of jobs still running, ours or anyone's, are not counted).
SHM = Path('/dev/shm')

def _shm_names():
    try: return {n for n in os.listdir(SHM) if n.startswith(('mpich_shm_', 'lt'))}
    except OSError: return set()

def _in_use(path):
    "Whether any process we can see maps `path` or has it open (the launcher's own test, used for its MPICH cleanup)."
    from lit_torch.distributed.run import _mapped_anywhere
    return _mapped_anywhere(path)

def pytest_sessionstart(session):
    if SHM.is_dir(): session.config._shm_before = _shm_names()

def pytest_sessionfinish(session, exitstatus):
    before = getattr(session.config, '_shm_before', None)
    if before is None: return
    left = sorted(n for n in _shm_names() - before if not _in_use(str(SHM / n)))
    session.config._shm_left = left
    if left and session.exitstatus == 0: session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter):
    "The OpInfo driver's one-line summary (tests/test_opinfo.py), when it ran; and what the run left in /dev/shm."
    driver = sys.modules.get('test_opinfo')
    if driver is not None and hasattr(driver, 'terminal_summary'): driver.terminal_summary(terminalreporter)
    left = getattr(terminalreporter.config, '_shm_left', None)
    if left: terminalreporter.write_line(f"FAILED: the run left {len(left)} file(s) in /dev/shm that no process uses: "
                                         + ', '.join(left), red=True)
