"""`cupy.cuda`: devices as context managers, streams and events (all work is synchronous here), pinned memory."""
import numpy as _np
from .. import _emulation as _emu
from .._core import MemoryPointer, _roots
from . import runtime

def is_available(): return _emu.device_count() > 0

def get_device_id(): return runtime.getDevice()

class Device:
    "A GPU; `with Device(i):` makes it current for the block, and restores the previous one after."
    def __init__(self, device=None):
        self.id = runtime.getDevice() if device is None else int(device)
    def __int__(self): return self.id
    def __enter__(self):
        _emu.local.stack.append(runtime.getDevice())
        try: runtime.setDevice(self.id)
        except Exception: _emu.local.stack.pop(); raise
        return self
    def __exit__(self, *exc): runtime.setDevice(_emu.local.stack.pop())
    def __repr__(self): return f'<CUDA Device {self.id}>'
    def use(self):
        runtime.setDevice(self.id)
        return self
    def synchronize(self): _emu.record('synchronize')
    def __eq__(self, other): return isinstance(other, Device) and self.id == other.id
    def __ne__(self, other): return not self == other
    def __lt__(self, other): return self.id < other.id if isinstance(other, Device) else NotImplemented
    def __hash__(self): return hash(('cuda', self.id))
    @property
    def compute_capability(self): return '90'
    @property
    def mem_info(self): return runtime.memGetInfo()

class Event:
    "A marker in a stream: done once the NCCL work queued before it has finished (everything else is synchronous here)."
    def __init__(self, block=False, disable_timing=False, interprocess=False):
        self.device_id, self._recorded, self._work = runtime.getDevice(), False, []
    def record(self, stream=None): self._recorded, self._work = True, list(_emu.inflight)
    @property
    def done(self):
        "cudaEventQuery: True when the work before the event has finished; never blocks."
        self._work = [w for w in self._work if not w.test()]
        return not self._work
    def query(self): return self.done
    def synchronize(self):
        for w in self._work: w.wait()
        self._work = []
        _emu.record('synchronize')
    ptr = 0

class Stream:
    "A CUDA stream: a context that makes itself current; only NCCL work stays queued on it (the rest is synchronous)."
    null = None
    def __init__(self, null=False, non_blocking=False, ptds=False):
        self.ptr, self.device_id = (0 if null else id(self)), runtime.getDevice()
    def __enter__(self):
        _stack().append(self)
        return self
    def __exit__(self, *exc): _stack().pop()
    def use(self):
        _stack()[:] = [self]
        return self
    def synchronize(self): _emu.record('synchronize')
    @property
    def done(self): return all(w.test() for w in list(_emu.inflight))
    def record(self, event=None):
        event = event or Event()
        event.record(self)
        return event
    def wait_event(self, event): pass
    def __eq__(self, other): return isinstance(other, Stream) and self.ptr == other.ptr
    def __hash__(self): return hash(self.ptr)

Stream.null = Stream(null=True)

def _stack():
    s = getattr(_emu.local, 'streams', None)
    if s is None: s = _emu.local.streams = []
    return s

def get_current_stream(device_id=None):
    s = _stack()
    return s[-1] if s else Stream.null

class PinnedMemoryPointer(bytearray):
    "Page-locked host memory: NumPy arrays made over it (`cupyx.empty_pinned`) have it as their base."

def alloc_pinned_memory(size): return PinnedMemoryPointer(int(size))

from .._core import MemoryPointer  # noqa: E402,F401  (cupy.cuda.MemoryPointer)

def _device_of_pointer(ptr):
    "The device of the allocation that holds address `ptr` (NCCL checks it); None for host memory."
    for a in list(_roots.values()):
        lo = a._a.ctypes.data
        if lo <= ptr < lo + max(a._a.nbytes, 1): return a._dev
    return None

def __getattr__(name):
    if name == 'nccl':
        import importlib
        return importlib.import_module(__name__ + '.nccl')
    raise AttributeError(f"cupy.cuda.{name} is not emulated by tests/fake_cupy")
