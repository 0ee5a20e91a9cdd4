"""The bookkeeping of the emulation: how many devices there are, which one is current (per thread, as in CUDA),
and a log of every point where real CuPy would make the host wait for the GPU.

    from cupy import _emulation
    with _emulation.count_syncs() as log:
        train_step()
    assert log.syncs <= 2, log   # printing the log shows where each sync happened

Kinds of event: 'float', 'int', 'bool', 'complex', 'item', 'tolist', 'get', 'asnumpy', 'repr' (a device-to-host
copy the user asked for), 'implicit' (CuPy syncs internally to learn a data-dependent shape: `nonzero`, boolean-mask
indexing, `unique`, ...), 'synchronize' (an explicit device/stream/event wait). Not syncs, logged for the record:
'h2d' (a host-to-device copy) and 'numpy' (a NumPy function called on a device array, which CuPy serves through
`__array_function__`/`__array_ufunc__`: it works, but it is the stray `np.` call lit_torch's rules forbid).
"""
import collections, contextlib, os, sys, threading

FAKE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOT_SYNCS = frozenset({'h2d', 'numpy'})

def device_count():
    "The number of emulated GPUs: LIT_TORCH_EMULATE_CUDA_DEVICES, or 2."
    return int(os.environ.get('LIT_TORCH_EMULATE_CUDA_DEVICES', '2'))

class _Local(threading.local):
    def __init__(self):
        self.device = 0      # CUDA starts every host thread on device 0
        self.stack = []      # Device contexts entered on this thread
        self.forbid_syncs = False   # inside cupyx.allow_synchronize(False)

local = _Local()

class SyncLog:
    "The events recorded while a `count_syncs()` block ran."
    def __init__(self): self.events = []
    def count(self, *kinds): return sum(1 for k, _ in self.events if k in kinds)
    @property
    def syncs(self): return sum(1 for k, _ in self.events if k not in NOT_SYNCS)
    def where(self, *kinds):
        "Counter of call sites for events of `kinds` (every sync kind when none given)."
        return collections.Counter(w for k, w in self.events if (k in kinds if kinds else k not in NOT_SYNCS))
    def __repr__(self):
        lines = [f"{self.syncs} sync(s), {self.count('h2d')} host-to-device copies, {self.count('numpy')} NumPy dispatches"]
        for (k, w), n in collections.Counter(self.events).most_common(): lines.append(f"  {n:4d} x {k:9s} at {w}")
        return '\n'.join(lines)

_lock = threading.Lock()
_logs = []
totals = collections.Counter()

def _caller(depth=int(os.environ.get("FAKE_CUPY_DEPTH", 3))):
    "The first frames outside the emulation and NumPy: the lines of lit_torch (or of a test) that caused the event."
    f, out = sys._getframe(2), []
    while f is not None and len(out) < depth:
        fn = f.f_code.co_filename
        if not fn.startswith(FAKE_DIR) and f'{os.sep}numpy{os.sep}' not in fn and not fn.startswith('<__array_function__'):
            out.append(f"{os.path.relpath(fn) if not fn.startswith('<') else fn}:{f.f_lineno} in {f.f_code.co_name}")
        f = f.f_back
    return ' < '.join(out) or '?'

# ---------------------------------------------------------------- work queued on streams (NCCL)
# A NCCL call returns as soon as its kernel is queued; the kernel finishes when every peer has joined it, or never.
# The fake NCCL puts each unfinished call here. A later kernel or a host read waits for them (stream order), an
# Event or Stream answers `done` by testing them, and NcclCommunicator.abort() drops them.
inflight = []

def drain():
    "Finish the queued NCCL work, in order: what a kernel or a host read queued after it waits for on a GPU."
    while inflight: inflight[0].wait()

def record(kind):
    "Log one event of `kind` in every active `count_syncs()` block."
    if inflight and kind != 'numpy': drain()
    if local.forbid_syncs and kind not in NOT_SYNCS:
        from cupyx import DeviceSynchronized
        raise DeviceSynchronized(f'a {kind} sync at {_caller()} inside cupyx.allow_synchronize(False)')
    with _lock:
        totals[kind] += 1
        if not _logs: return
    where = _caller()
    with _lock:
        for log in _logs: log.events.append((kind, where))

@contextlib.contextmanager
def count_syncs():
    "Record the events of the block (from every thread) in a `SyncLog`."
    log = SyncLog()
    with _lock: _logs.append(log)
    try: yield log
    finally:
        with _lock: _logs.remove(log)
