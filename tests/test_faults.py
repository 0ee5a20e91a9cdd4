"""Fault injection: killed workers, killed main processes, dead or early-exiting MPI ranks, loaders abandoned mid-epoch.
After every case: no child process is left, and no shared-memory block is left in /dev/shm.
Every case is bounded by a timeout; none asserts on time."""
import gc, os, signal, subprocess, sys, textwrap, time
from pathlib import Path
import pytest

pytestmark = pytest.mark.faults
ROOT = Path(__file__).parent.parent
PY = sys.executable
MPIEXEC = Path(PY).parent / 'mpiexec'
try: import mpi4py
except ImportError: mpi4py = None
needs_mpi = pytest.mark.skipif(mpi4py is None or not MPIEXEC.exists(), reason="needs mpi4py and mpiexec (pip install mpi4py mpich)")
linux = pytest.mark.skipif(not sys.platform.startswith('linux'), reason="reads /proc and /dev/shm")


def shm(): return set(os.listdir('/dev/shm')) if os.path.isdir('/dev/shm') else set()

def alive(pid):
    "True while `pid` runs (a zombie counts as gone: it holds no memory and no descriptors)."
    try:
        with open(f'/proc/{pid}/stat') as f: return f.read().rsplit(')', 1)[1].split()[0] != 'Z'
    except OSError: return False

def children(pid=None):
    pid = os.getpid() if pid is None else pid
    out = []
    for d in os.listdir('/proc'):
        if d.isdigit():
            try:
                with open(f'/proc/{d}/stat') as f: fields = f.read().rsplit(')', 1)[1].split()
            except OSError: continue
            if int(fields[1]) == pid and fields[0] != 'Z' and not _resource_tracker(int(d)): out.append(int(d))
    return out

def _resource_tracker(pid):
    "Python's multiprocessing resource tracker: one per interpreter, started by any earlier test, alive until exit."
    try:
        with open(f'/proc/{pid}/cmdline', 'rb') as f: return b'multiprocessing.resource_tracker' in f.read()
    except OSError: return False

def wait_gone(pids, limit=15):
    "Wait (bounded) until none of `pids` runs; return those still running."
    end = time.monotonic() + limit
    while time.monotonic() < end and any(alive(p) for p in pids): time.sleep(0.05)
    return [p for p in pids if alive(p)]

def hydra_files():
    "MPICH's launcher keeps each node's topology in /tmp/hydra_hwloc_xmlfile_*; an aborted job must not leave its file."
    return {n for n in os.listdir('/tmp') if n.startswith('hydra_hwloc_xmlfile_')}

def ours(names, pids):
    "Entries that processes `pids` could have named: lit_torch's old `lt<pid>...` blocks, and MPICH's files."
    return {n for n in names if any(n.startswith(f"lt{p:x}") for p in pids)}

@pytest.fixture
def clean():
    "Assert that the test leaves no child process and no new lit_torch block in /dev/shm."
    before = shm()
    yield
    gc.collect()
    assert wait_gone(children(), 10) == [], f"child processes left: {children()}"
    new = {n for n in shm() - before if n.startswith('lt')}
    assert new == set(), f"shared-memory blocks left: {new}"

def env():
    e = dict(os.environ)
    e['PYTHONPATH'] = os.pathsep.join([str(ROOT)] + [p for p in [e.get('PYTHONPATH')] if p])
    e.setdefault('OMP_NUM_THREADS', '1')
    return e

BIG = 128 * 1024 // 4  # float32 elements per sample: every batch travels through shared memory


def _loader(num_workers=2, **kw):
    import lit_torch as torch
    class Big(torch.utils.data.Dataset):
        def __len__(self): return 64
        def __getitem__(self, i): return torch.full((BIG,), float(i))
    return torch.utils.data.DataLoader(Big(), batch_size=4, num_workers=num_workers, **kw)


# ---------------------------------------------------------------- a worker dies
@linux
@pytest.mark.parametrize('sig', [signal.SIGKILL, signal.SIGTERM])
def test_killed_worker_raises_and_leaves_nothing(clean, sig):
    it = iter(_loader())
    next(it)
    victim = it._workers[0].pid
    os.kill(victim, sig)
    with pytest.raises(RuntimeError, match=rf"DataLoader worker 0 \(pid {victim}\) is killed by signal: {signal.strsignal(sig)}"):
        for _ in range(100): next(it)
    del it


def _read_forever(flag):
    while True: flag.is_set()

@linux
def test_stop_flag_survives_a_worker_killed_while_reading_it(clean):
    """A worker asks the stop flag before each task. multiprocessing.Event takes a lock shared by all processes to
    answer, so a worker killed inside is_set() held it for good, and the main process's set() at shutdown waited
    forever (the test above hung so about once in 40 runs). The loader's flag is a byte with no lock."""
    import multiprocessing, threading
    from lit_torch.utils.data.dataloader import _DoneFlag
    ctx = multiprocessing.get_context('fork')
    flag = _DoneFlag(ctx)
    for _ in range(20):  # kill readers at random moments: an Event's lock is taken in nearly every one
        p = ctx.Process(target=_read_forever, args=(flag,))
        p.start(); time.sleep(0.02)
        os.kill(p.pid, signal.SIGKILL); p.join(); p.close()
    setter = threading.Thread(target=flag.set, daemon=True)
    setter.start(); setter.join(10)
    assert not setter.is_alive(), "set() is waiting for a lock that a killed reader holds"
    assert flag.is_set()


class _Bytes:
    def __len__(self): return 4
    def __getitem__(self, i): return b'x' * (8 << 20)   # pickled into the result pipe, not shared memory

@linux
def test_worker_killed_halfway_through_a_result_raises(clean):
    """A result larger than a pipe holds is written in pieces. A worker killed between two pieces left half a
    message, and multiprocessing.Queue.get read on forever for the rest, never reaching the dead-worker check.
    The loader's result queue gives up on its slice's timeout instead."""
    import threading
    import lit_torch as torch
    it = iter(torch.utils.data.DataLoader(_Bytes(), batch_size=None, num_workers=1))
    assert it._worker_result_queue._reader.poll(20)   # the first 64 KiB of an 8 MiB result are in the pipe
    time.sleep(0.2)
    victim = it._workers[0].pid
    os.kill(victim, signal.SIGKILL)
    raised = []
    def take():
        try: next(it)
        except RuntimeError as e: raised.append(str(e))
    t = threading.Thread(target=take, daemon=True)
    t.start(); t.join(20)
    assert not t.is_alive(), "next() is waiting for the rest of a message from a dead worker"
    assert raised and f"DataLoader worker 0 (pid {victim}) is killed by signal" in raised[0], raised
    del it


# ---------------------------------------------------------------- the main process dies
MAIN = textwrap.dedent("""
    import os, sys, time
    import lit_torch as torch
    class Big(torch.utils.data.Dataset):
        def __len__(self): return 10**6
        def __getitem__(self, i): return torch.full(({big},), float(i))
    dl = torch.utils.data.DataLoader(Big(), batch_size=4, num_workers=2, prefetch_factor=4)
    it = iter(dl)
    b = next(it)
    print(os.getpid(), *[w.pid for w in it._workers], flush=True)
    for b in it: time.sleep(float(sys.argv[1]))
""")

@linux
@pytest.mark.parametrize('sig', [signal.SIGKILL, signal.SIGTERM])
@pytest.mark.parametrize('delay', [0.0, 0.05, 0.3])
def test_killed_main_leaves_no_block_and_no_orphan(clean, tmp_path, sig, delay):
    script = tmp_path / 'main.py'
    script.write_text(MAIN.format(big=BIG))
    before = shm()
    p = subprocess.Popen([PY, str(script), '0.01'], stdout=subprocess.PIPE, text=True, env=env())
    try:
        pids = [int(x) for x in p.stdout.readline().split()]
        assert len(pids) == 3, pids
        time.sleep(delay)  # batches are in flight in every phase: being filled, queued, taken, mapped
        os.kill(p.pid, sig)
        p.wait(timeout=20)
    finally:
        if p.poll() is None: p.kill(); p.wait()
    assert wait_gone(pids[1:], 15) == [], "workers outlived their parent"
    assert ours(shm() - before, pids) == set()


# ---------------------------------------------------------------- leaving a loader early
@linux
def test_break_with_pin_memory_and_persistent_workers(clean):
    dl = _loader(pin_memory=True, persistent_workers=True, prefetch_factor=3)
    for epoch in range(3):
        for i, b in enumerate(dl):
            assert float(b[0, 0]) == 4 * i
            if i == 1: break  # batches in flight in the pin thread and in the queues
    pids = [w.pid for w in dl._iterator._workers]
    del dl, b
    gc.collect()
    assert wait_gone(pids, 10) == []


def _fds(): return len(os.listdir('/proc/self/fd'))
def _rss_kib():
    with open('/proc/self/status') as f: return next(int(l.split()[1]) for l in f if l.startswith('VmRSS'))

@linux
def test_many_loader_cycles_keep_fds_and_memory_stable(clean):
    "1,000 create/destroy cycles, each with a worker and a batch through shared memory: descriptors and RSS stay flat."
    import lit_torch as torch
    data = [torch.full((BIG,), 1.0)] * 2
    def cycle():
        for b in torch.utils.data.DataLoader(data, batch_size=2, num_workers=1): assert b.shape == (2, BIG)
    for _ in range(50): cycle()
    gc.collect()
    fds, rss = _fds(), _rss_kib()
    for _ in range(950): cycle()
    gc.collect()
    assert _fds() <= fds, f"descriptors grew from {fds} to {_fds()}"
    assert _rss_kib() - rss < 20 * 1024, f"RSS grew from {rss} KiB to {_rss_kib()} KiB"


# ---------------------------------------------------------------- MPI ranks that die or leave
RANKS = textwrap.dedent("""
    import datetime, os, sys, time
    import lit_torch as torch, lit_torch.distributed as dist
    how, where = sys.argv[1], sys.argv[2]
    dist.init_process_group('mpi', timeout=datetime.timedelta(seconds=3))
    r = dist.get_rank()
    names = sorted({l.split(None, 5)[5].split()[0] for l in open('/proc/self/maps') if 'mpich_shm' in l})
    with open(os.path.join(sys.argv[3], f'rank{r}'), 'w') as f: f.write(' '.join([str(os.getpid()), *names]))
    dist.barrier()  # both ranks have written theirs before either dies
    def die():
        if r != 1: return
        if how == 'kill': os.kill(os.getpid(), 9)
        sys.exit(0)
    torch.manual_seed(0)
    if where == 'collective':
        die()
        dist.all_reduce(torch.ones(4))
    elif where == 'ddp':
        model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 2))
        model.module.weight.register_hook(lambda g: die())
        model(torch.randn(3, 4)).sum().backward()
    else:
        bn = torch.nn.SyncBatchNorm(3)
        if r == 1: dist.all_gather_into_tensor = lambda *a, **k: die()  # SyncBatchNorm's first collective
        bn(torch.randn(4, 3))
    print('DONE', r, flush=True)
""")

@linux
@needs_mpi
@pytest.mark.parametrize('where', ['collective', 'ddp', 'syncbn'])
@pytest.mark.parametrize('how', ['kill', 'exit'])
def test_rank_that_dies_or_leaves_ends_the_job(clean, tmp_path, how, where):
    script = tmp_path / 'ranks.py'
    script.write_text(RANKS)
    hydra = hydra_files()
    p = subprocess.run([str(MPIEXEC), '-n', '2', PY, str(script), how, where, str(tmp_path)], capture_output=True, text=True,
                       timeout=60, env=env())
    out = p.stdout + p.stderr
    assert p.returncode != 0, out
    assert 'DONE 0' not in out, out  # rank 0 never completes the collective its peer left
    if how == 'exit':  # rank 0 waits until the timeout, then raises torch's error type and aborts the job
        assert 'DistBackendError' in out and 'Timed out waiting 3000ms for' in out and '[Rank 0]' in out, out
    lines = [(tmp_path / f'rank{r}').read_text().split() for r in (0, 1)]
    assert wait_gone([int(l[0]) for l in lines], 10) == []
    names = {os.path.basename(n) for l in lines for n in l[1:]}
    assert names and not (names & shm()), f"MPICH left {names & shm()} in /dev/shm"
    assert hydra_files() - hydra == set(), "the aborted job left MPICH's topology file in /tmp"


# ---------------------------------------------------------------- NCCL (GPU) waits: a peer that never arrives
# The GPU path runs on the emulated CUDA of tests/fake_cupy, whose NCCL queues each call (a nonblocking MPI call) the way
# a GPU queues a kernel: rank 0's collective stays queued forever when rank 1 never joins it.
NCCL_RANKS = textwrap.dedent("""
    import datetime, os, sys, time
    import lit_torch as torch, lit_torch.distributed as dist
    op, peer = sys.argv[1], sys.argv[2]
    r = int(os.environ['PMI_RANK'])
    torch.cuda.set_device(r)
    dist.init_process_group('nccl', timeout=datetime.timedelta(seconds=3))
    names = sorted({l.split(None, 5)[5].split()[0] for l in open('/proc/self/maps') if 'mpich_shm' in l})
    with open(os.path.join(sys.argv[3], f'rank{r}'), 'w') as f: f.write(' '.join([str(os.getpid()), *names]))
    x = torch.ones(4, device=f'cuda:{r}')
    dist.all_reduce(x)  # one the peer joins: it completes
    assert x.tolist() == [2.0] * 4, x
    dist.barrier()
    if r == 1:
        if peer == 'exit': sys.exit(0)
        time.sleep(120)  # alive, but never joins: only the abort ends it
    if op == 'all_reduce': dist.all_reduce(x)
    elif op == 'async': dist.all_reduce(x, async_op=True).wait()
    else: dist.recv(x, src=1)
    print('DONE', r, flush=True)
""")

@linux
@needs_mpi
@pytest.mark.parametrize('op,peer', [('all_reduce', 'exit'), ('all_reduce', 'sleep'), ('async', 'sleep'), ('recv', 'sleep')])
def test_nccl_wait_times_out_and_ends_the_job(clean, tmp_path, op, peer):
    "Rank 0 polls the event behind its NCCL call against the timeout: DistBackendError, then the job is aborted."
    script = tmp_path / 'ranks.py'
    script.write_text(NCCL_RANKS)
    hydra = hydra_files()
    e = env()
    e['PYTHONPATH'] = os.pathsep.join([str(ROOT / 'tests' / 'fake_cupy'), e['PYTHONPATH']])
    e['LIT_TORCH_EMULATE_CUDA'] = '1'
    p = subprocess.run([str(MPIEXEC), '-n', '2', PY, str(script), op, peer, str(tmp_path)], capture_output=True, text=True,
                       timeout=60, env=e)
    out = p.stdout + p.stderr
    assert p.returncode != 0, out
    assert 'DONE 0' not in out, out
    what = 'RECV' if op == 'recv' else 'ALLREDUCE'   # torch's watchdog words, with the work's sequence number
    assert 'DistBackendError: [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=' in out, out
    assert f'OpType={what}, Timeout(ms)=3000) ran for ' in out and 'milliseconds before timing out' in out, out
    lines = [(tmp_path / f'rank{r}').read_text().split() for r in (0, 1)]
    assert wait_gone([int(l[0]) for l in lines], 10) == []
    names = {os.path.basename(n) for l in lines for n in l[1:]}
    assert not (names & shm()), f"MPICH left {names & shm()} in /dev/shm"
    assert hydra_files() - hydra == set(), "the aborted job left MPICH's topology file in /tmp"


# ---------------------------------------------------------------- files left in the temporary directory
def _all_ranks_fail(i): raise ValueError(f'rank {i} failed')

@linux
def test_failed_spawn_leaves_no_error_file(clean, tmp_path, monkeypatch):
    "Each failed rank writes its traceback to a file in the temporary directory: the parent reads one and removes all."
    import tempfile, lit_torch
    monkeypatch.setattr(tempfile, 'tempdir', str(tmp_path))
    with pytest.raises(lit_torch.multiprocessing.ProcessRaisedException, match=r'rank \d failed'):
        lit_torch.multiprocessing.start_processes(_all_ranks_fail, nprocs=2, start_method='fork')
    assert os.listdir(tmp_path) == []

def test_serialization_bench_removes_its_checkpoints(tmp_path, monkeypatch, capsys):
    "The bench writes checkpoints of up to 256 MiB a run: they go in a directory it removes."
    import tempfile
    sys.path.insert(0, str(ROOT / 'benchmarks'))
    import bench_serialization
    monkeypatch.setattr(tempfile, 'tempdir', str(tmp_path))
    bench_serialization.worker('lit', '4000 small (8x8 float32)', 1, 'pt')
    assert '"bytes"' in capsys.readouterr().out and os.listdir(tmp_path) == []

FOREVER = textwrap.dedent("""
    import subprocess, sys, tempfile, time
    child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])
    d = tempfile.mkdtemp()
    open(d + '/big.bin', 'wb').write(b'x' * 1000)
    print(d, child.pid, flush=True)
    time.sleep(60)
""")

@linux
def test_bench_run_past_its_limit_leaves_no_process_and_no_file(clean, tmp_path):
    "run_all kills the script's whole process group, and removes the temporary directory the script wrote in."
    sys.path.insert(0, str(ROOT / 'benchmarks'))
    import run_all
    script = tmp_path / 'bench_forever.py'
    script.write_text(FOREVER)
    out, ok = run_all.run_script(script, timeout=5)
    d, pid = out.split()
    assert not ok and not os.path.exists(d)
    assert wait_gone([int(pid)], 10) == []

def test_notebooks_leave_no_temporary_directory():
    "`tempfile.mkdtemp()` in a notebook leaves a directory behind every `make test`; TemporaryDirectory removes itself."
    leaks = [p.name for p in (ROOT / 'nbs').glob('*.ipynb') if 'tempfile.mkdtemp(' in p.read_text()]
    assert leaks == []
