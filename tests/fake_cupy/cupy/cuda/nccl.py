"""`cupy.cuda.nccl` for tests: a communicator that works on raw device pointers, as NCCL does.

A world of one process copies between the buffers. A world of several processes launched by MPI (`mpiexec`) runs
each collective through mpi4py's COMM_WORLD on the memory behind the pointers, so the NCCL code path of lit_torch
(pointers, counts, dtypes, streams) runs end to end; only communicators that span the whole MPI world are emulated.
Every call checks that the buffers live on the communicator's device and that this device is current.

As on a GPU, a call between ranks only *queues* the collective (a nonblocking MPI call) and returns: it finishes
when every peer has joined it, which an Event recorded after it reports (`event.done`), and a later kernel or host
read waits for it (stream order). A peer that never arrives leaves it queued forever; `abort()` drops it.
"""
import ctypes, os
import numpy as np
from . import runtime, _device_of_pointer
from .. import _emulation as _emu

available = True

NCCL_SUM, NCCL_PROD, NCCL_MAX, NCCL_MIN, NCCL_AVG = 0, 1, 2, 3, 4
NCCL_INT8 = NCCL_CHAR = 0
NCCL_UINT8 = 1
NCCL_INT32 = NCCL_INT = 2
NCCL_UINT32 = 3
NCCL_INT64 = 4
NCCL_UINT64 = 5
NCCL_FLOAT16 = NCCL_HALF = 6
NCCL_FLOAT32 = NCCL_FLOAT = 7
NCCL_FLOAT64 = NCCL_DOUBLE = 8
NCCL_BFLOAT16 = 9
_DTYPES = {0: np.int8, 1: np.uint8, 2: np.int32, 3: np.uint32, 4: np.int64, 5: np.uint64, 6: np.float16, 7: np.float32,
           8: np.float64}
NCCL_UNIQUE_ID_BYTES = 128

class NcclError(RuntimeError):
    def __init__(self, status, msg=''):
        self.status = status
        super().__init__(f"{ {4: 'NCCL_ERROR_INVALID_DEVICE_POINTER', 5: 'NCCL_ERROR_INVALID_RANK', 12: 'NCCL_ERROR_INVALID_ARGUMENT', 14: 'NCCL_ERROR_INVALID_OPERATION'}.get(status, status)}: {msg}")

def get_version(): return 22900
def get_build_version(): return 22900
def get_unique_id(): return os.urandom(NCCL_UNIQUE_ID_BYTES)

_group_depth, _pending = [0], []   # point-to-point calls between groupStart and groupEnd start together at groupEnd
def groupStart(): _group_depth[0] += 1
def groupEnd():
    if _group_depth[0] == 0: raise NcclError(14, 'groupEnd without groupStart')
    _group_depth[0] -= 1
    if _group_depth[0] == 0:
        ops, _pending[:] = list(_pending), []
        _run_p2p(ops)

class _Queued:
    "One NCCL call queued on a stream: its MPI requests, the buffers they use, and what to do once they complete."
    def __init__(self, comm, reqs, keep=None, then=None):
        self.comm, self.reqs, self.keep, self.then, self.finished = comm, list(reqs), keep, then, False
        _emu.inflight.append(self)
    def _finish(self):
        self.finished, self.keep = True, None
        if self in _emu.inflight: _emu.inflight.remove(self)
        if self.then is not None: self.then()
    def test(self):
        "Poll (MPI progresses the transfer); True once finished."
        if not self.finished and _MPI().Request.Testall(self.reqs): self._finish()
        return self.finished
    def wait(self):
        "Block until finished: forever, if a peer never joins."
        if not self.finished:
            _MPI().Request.Waitall(self.reqs)
            self._finish()

def _MPI():
    from mpi4py import MPI
    return MPI

def _run_p2p(ops):
    "Start every send and receive, then wait for all: a rank may send to itself inside a group."
    local = [o for o in ops if o[0]._mpi is None]
    sends = [o for o in local if o[1] == 'send']
    for o in local:
        if o[1] == 'recv':
            if not sends: raise NcclError(5, 'a world of one has nobody to receive from')
            o[2][...] = sends.pop(0)[2]
    reqs = []
    for comm, kind, buf, peer in (o for o in ops if o[0]._mpi is not None):
        reqs.append(comm._mpi.Isend(buf, dest=peer, tag=7) if kind == 'send' else comm._mpi.Irecv(buf, source=peer, tag=7))
    if reqs: _Queued(ops[0][0], reqs, keep=ops)

def _view(ptr, count, datatype):
    "A NumPy array over the `count` elements at device address `ptr`."
    dt = np.dtype(_DTYPES[datatype])
    if count == 0: return np.empty(0, dt)
    return np.frombuffer((ctypes.c_char * (count * dt.itemsize)).from_address(ptr), dt)

class NcclCommunicator:
    "One rank of a communicator; it belongs to the device that was current when it was made."
    def __init__(self, ndev, commId, rank, config=None):
        if len(commId) != NCCL_UNIQUE_ID_BYTES: raise ValueError(f"commId length {len(commId)} != {NCCL_UNIQUE_ID_BYTES}.")
        if not 0 <= rank < ndev: raise NcclError(5, f'rank {rank} of {ndev}')
        self._size, self._rank, self._dev, self._mpi = ndev, rank, runtime.getDevice(), None
        if ndev > 1:
            from mpi4py import MPI
            if MPI.COMM_WORLD.Get_size() != ndev:
                raise NotImplementedError('fake NCCL: only a communicator over the whole MPI world is emulated')
            self._mpi, self._MPI = MPI.COMM_WORLD.Dup(), MPI
    def device_id(self): return self._dev
    def rank_id(self): return self._rank
    def size(self): return self._size
    def destroy(self):
        for w in [w for w in _emu.inflight if w.comm is self]: w.wait()   # ncclCommDestroy lets queued work finish
        if self._mpi is not None and not self._MPI.Is_finalized(): self._mpi.Free()
        self._mpi, self._aborted = None, True
    def abort(self):
        "ncclCommAbort: the queued kernels stop (they never finish) and the communicator is unusable."
        _emu.inflight[:] = [w for w in _emu.inflight if w.comm is not self]
        self._mpi, self._aborted = None, True
    _aborted = False
    def _check(self, *ptrs):
        if self._aborted: raise NcclError(14, 'the communicator was aborted or destroyed')
        if runtime.getDevice() != self._dev:
            raise NcclError(12, f'the communicator belongs to device {self._dev} but device {runtime.getDevice()} is current')
        for p in ptrs:
            d = _device_of_pointer(p)
            if d != self._dev: raise NcclError(4, f'buffer at {p:#x} is on {"the host" if d is None else f"device {d}"}, not on device {self._dev}')
    def _queue(self, req, keep, op=None, r=None):
        "Leave the MPI request queued on the stream; AVG divides once it completes."
        _Queued(self, [req], keep, (lambda: r.__setitem__(Ellipsis, r / self._size)) if op == NCCL_AVG and r is not None else None)
    def _op(self, op):
        M = self._MPI
        return {NCCL_SUM: M.SUM, NCCL_PROD: M.PROD, NCCL_MAX: M.MAX, NCCL_MIN: M.MIN, NCCL_AVG: M.SUM}[op]
    def allReduce(self, sendbuf, recvbuf, count, datatype, op, stream):
        self._check(sendbuf, recvbuf)
        s, r = _view(sendbuf, count, datatype), _view(recvbuf, count, datatype)
        if self._mpi is None: r[...] = s
        else:
            send = self._MPI.IN_PLACE if sendbuf == recvbuf else s.copy()
            return self._queue(self._mpi.Iallreduce(send, r, self._op(op)), (send, r), op, r)
        if op == NCCL_AVG: r[...] = r / self._size
    def reduce(self, sendbuf, recvbuf, count, datatype, op, root, stream):
        self._check(sendbuf, *([recvbuf] if self._rank == root else []))
        s = _view(sendbuf, count, datatype)
        r = _view(recvbuf, count, datatype) if self._rank == root else None
        if self._mpi is None: r[...] = s
        else:
            send = self._MPI.IN_PLACE if self._rank == root and sendbuf == recvbuf else s.copy()
            return self._queue(self._mpi.Ireduce(send, r, self._op(op), root=root), (send, r), op, r)
        if op == NCCL_AVG and r is not None: r[...] = r / self._size
    def broadcast(self, sendbuff, recvbuff, count, datatype, root, stream):
        self._check(sendbuff, recvbuff)
        s, r = _view(sendbuff, count, datatype), _view(recvbuff, count, datatype)
        if self._rank == root and sendbuff != recvbuff: r[...] = s
        if self._mpi is not None: self._queue(self._mpi.Ibcast(r, root=root), r)
    def bcast(self, buff, count, datatype, root, stream): self.broadcast(buff, buff, count, datatype, root, stream)
    def allGather(self, sendbuf, recvbuf, count, datatype, stream):
        self._check(sendbuf, recvbuf)
        s, r = _view(sendbuf, count, datatype), _view(recvbuf, count * self._size, datatype)
        if self._mpi is None: r[...] = s
        else:
            s = s.copy()
            self._queue(self._mpi.Iallgather(s, r), (s, r))
    def reduceScatter(self, sendbuf, recvbuf, recvcount, datatype, op, stream):
        self._check(sendbuf, recvbuf)
        s, r = _view(sendbuf, recvcount * self._size, datatype), _view(recvbuf, recvcount, datatype)
        if self._mpi is None: r[...] = s
        else:
            s = s.copy()
            return self._queue(self._mpi.Ireduce_scatter_block(s, r, self._op(op)), (s, r), op, r)
        if op == NCCL_AVG: r[...] = r / self._size
    def _p2p(self, kind, ptr, count, datatype, peer):
        self._check(ptr)
        if not 0 <= peer < self._size: raise NcclError(5, f'peer {peer} of {self._size}')
        buf = _view(ptr, count, datatype)
        _pending.append((self, kind, buf.copy() if kind == 'send' else buf, peer))
        if _group_depth[0] == 0: groupStart(); groupEnd()
    def send(self, sendbuf, count, datatype, peer, stream): self._p2p('send', sendbuf, count, datatype, peer)
    def recv(self, recvbuf, count, datatype, peer, stream): self._p2p('recv', recvbuf, count, datatype, peer)
    def check_async_error(self): pass
