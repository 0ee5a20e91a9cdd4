"""`cupy.cuda.runtime`: the current device (per host thread), the device count, and synchronization."""
from .. import _emulation as _emu

is_hip = False

class CUDARuntimeError(RuntimeError):
    "An error of the CUDA runtime, as CuPy raises it."
    def __init__(self, status, msg):
        self.status = status
        super().__init__(msg)

def _invalid(device):
    return CUDARuntimeError(101, f'cudaErrorInvalidDevice: invalid device ordinal (device {device}; the emulation has '
                                 f'{_emu.device_count()}: set LIT_TORCH_EMULATE_CUDA_DEVICES for more)')

def getDeviceCount(): return _emu.device_count()

def getDevice(): return _emu.local.device

def setDevice(device):
    device = int(device)
    if not 0 <= device < _emu.device_count(): raise _invalid(device)
    _emu.local.device = device

def deviceSynchronize(): _emu.record('synchronize')

def runtimeGetVersion(): return 13000
def driverGetVersion(): return 13000

def getDeviceProperties(device):
    if not 0 <= int(device) < _emu.device_count(): raise _invalid(device)
    return {'name': b'Emulated GPU (tests/fake_cupy)', 'totalGlobalMem': 16 * 2**30, 'major': 9, 'minor': 0,
            'multiProcessorCount': 1, 'uuid': bytes(16), 'pciBusID': int(device)}

def memGetInfo(): return (16 * 2**30, 16 * 2**30)

def deviceCanAccessPeer(device, peer_device): return 0   # the emulation is strict: no peer access
