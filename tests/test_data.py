"DataLoader & co. against torch.utils.data: same batches, same collate results, same errors; worker failures and cleanup."
import collections, gc, multiprocessing, os, signal, time
import numpy as np, pytest, torch
import lit_torch
import lit_torch.utils.data as L
from torch.utils import data as T

def shm_entries():
    try: return {n for n in os.listdir('/dev/shm') if n.startswith('lt')}
    except OSError: return set()

def to_np(x):
    if isinstance(x, (torch.Tensor, lit_torch.Tensor)): return x.numpy()
    return x

def assert_same(a, b):
    "Same structure, container types, tensor dtype/shape/values."
    if isinstance(a, torch.Tensor):
        assert isinstance(b, lit_torch.Tensor), type(b)
        assert str(a.dtype) == str(b.dtype) and tuple(a.shape) == tuple(b.shape)
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    elif isinstance(a, dict):
        assert type(a) is type(b) and list(a) == list(b)
        for k in a: assert_same(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), (type(a), type(b))
        for x, y in zip(a, b): assert_same(x, y)
    else: assert a == b and type(a) is type(b)

class MapDS:
    "Works with both libraries: numpy samples, converted by each one's collate."
    def __init__(self, n=23): self.n = n
    def __len__(self): return self.n
    def __getitem__(self, i):
        rng = np.random.default_rng(i)
        return {'x': rng.standard_normal((3, 4)).astype(np.float32), 'y': i, 'w': float(i) / 3, 'name': f"s{i}",
                'pair': (i % 2 == 0, np.int32(i))}

Point = collections.namedtuple('Point', 'a b')

# ---------------- collate ----------------
COLLATE_CASES = [
    [1, 2, 3], [1.5, 2.5], [True, False], ['a', 'b'], [b'a', b'b'],
    [np.float32(1), np.float32(2)], [np.int16(1), np.int16(2)], [np.arange(3), np.arange(3) + 1],
    [np.ones((2, 2), np.float64), np.zeros((2, 2), np.float64)],
    [(1, 2.0, 'x'), (3, 4.0, 'y')], [[1, 2], [3, 4]], [{'a': 1, 'b': [1.0, 2.0]}, {'a': 2, 'b': [3.0, 4.0]}],
    [Point(1, np.ones(2)), Point(2, np.zeros(2))], [collections.OrderedDict(z=1, a=2), collections.OrderedDict(z=3, a=4)],
]

@pytest.mark.parametrize('batch', COLLATE_CASES, ids=range(len(COLLATE_CASES)))
def test_default_collate_matches_torch(batch):
    assert_same(T.default_collate(batch), L.default_collate(batch))

def test_default_collate_tensors():
    xs = [np.random.default_rng(i).standard_normal((2, 3)).astype(np.float32) for i in range(4)]
    assert_same(T.default_collate([torch.tensor(x) for x in xs]), L.default_collate([lit_torch.tensor(x) for x in xs]))

@pytest.mark.parametrize('batch', [[np.arange(3), 1.0], {'a': np.arange(2)}], ids=['mixed', 'dict'])
def test_default_convert_matches_torch(batch):
    assert_same(T.default_convert(batch), L.default_convert(batch))

@pytest.mark.parametrize('batch', [[(1, 2), (3,)], [object(), object()], [np.array(['a']), np.array(['b'])]], ids=['ragged', 'object', 'str_array'])
def test_collate_errors(batch):
    with pytest.raises(Exception) as te: T.default_collate(batch)
    with pytest.raises(te.type) as le: L.default_collate(batch)
    assert str(le.value).split(';')[0] == str(te.value).split(';')[0]

# ---------------- samplers ----------------
@pytest.mark.parametrize('n,replicas,drop_last', [(10, 4, False), (10, 4, True), (7, 3, False), (8, 2, True), (3, 5, False)])
def test_distributed_sampler_partition(n, replicas, drop_last):
    for r in range(replicas):
        t = T.DistributedSampler(range(n), replicas, r, shuffle=False, drop_last=drop_last)
        l = L.DistributedSampler(range(n), replicas, r, shuffle=False, drop_last=drop_last)
        assert list(t) == list(l) and len(t) == len(l)

def test_distributed_sampler_shuffle_is_a_seeded_partition():
    # Our RNG (PCG64) differs from torch's, so the permutation differs; it is a partition, reproducible, epoch-dependent.
    shards = [list(L.DistributedSampler(range(11), 3, r, seed=5)) for r in range(3)]
    assert sorted(sum(shards, []))[:11] == sorted(set(range(11))) and len(sum(shards, [])) == 12
    assert shards[0] == list(L.DistributedSampler(range(11), 3, 0, seed=5))
    s = L.DistributedSampler(range(11), 3, 0, seed=5); s.set_epoch(1)
    assert list(s) != shards[0]

def test_sampler_errors():
    for lib in (T, L):
        with pytest.raises(ValueError, match='Invalid rank 3'): lib.DistributedSampler(range(4), 3, 3)
        with pytest.raises(ValueError, match='batch_size should be a positive integer'): lib.BatchSampler(range(3), 0, False)
        with pytest.raises(ValueError, match='num_samples should be a positive integer'): lib.RandomSampler(range(3), num_samples=0)

@pytest.mark.parametrize('drop_last', [False, True])
def test_batch_sampler(drop_last):
    assert list(T.BatchSampler(range(10), 3, drop_last)) == list(L.BatchSampler(range(10), 3, drop_last))
    assert len(T.BatchSampler(range(10), 3, drop_last)) == len(L.BatchSampler(range(10), 3, drop_last))

def test_random_samplers_are_seeded_permutations():
    g = lambda: lit_torch.Generator().manual_seed(3)
    a, b = list(L.RandomSampler(range(9), generator=g())), list(L.RandomSampler(range(9), generator=g()))
    assert a == b and sorted(a) == list(range(9))
    assert len(list(L.RandomSampler(range(4), num_samples=10))) == 10
    assert sorted(L.SubsetRandomSampler([5, 7, 9], generator=g())) == [5, 7, 9]
    assert set(L.WeightedRandomSampler([0., 1., 0., 2.], 20, generator=g())) <= {1, 3}
    with pytest.raises(RuntimeError): list(L.WeightedRandomSampler([0., 1.], 2, replacement=False))

def test_datasets_match_torch():
    tt, lt = (torch.arange(6), torch.arange(6) * 2), (lit_torch.arange(6), lit_torch.arange(6) * 2)
    td, ld = T.TensorDataset(*tt), L.TensorDataset(*lt)
    assert len(td) == len(ld) and [int(x) for x in td[4]] == [int(x) for x in ld[4]]
    tc, lc = T.ConcatDataset([range(3), range(10, 15)]), L.ConcatDataset([range(3), range(10, 15)])
    assert [tc[i] for i in range(-8, 8)] == [lc[i] for i in range(-8, 8)]
    assert list(T.Subset(range(10), [3, 1])) == list(L.Subset(range(10), [3, 1]))
    assert T.StackDataset(range(3), range(3, 6))[1] == L.StackDataset(range(3), range(3, 6))[1]
    assert T.StackDataset(a=range(3), b=range(3))[2] == L.StackDataset(a=range(3), b=range(3))[2]
    parts = L.random_split(range(10), [0.3, 0.3, 0.4], generator=lit_torch.Generator().manual_seed(0))
    assert [len(p) for p in parts] == [len(p) for p in T.random_split(range(10), [0.3, 0.3, 0.4])]
    with pytest.raises(ValueError, match="Sum of input lengths"): L.random_split(range(10), [3, 3])

# ---------------- DataLoader: batches equal to torch ----------------
LOADER_KW = [dict(batch_size=4), dict(batch_size=5, drop_last=True), dict(batch_size=None),
             dict(batch_sampler=[[3, 1], [0], [22, 5, 7]]), dict(batch_size=3, sampler=[4, 2, 9, 1, 0])]

@pytest.mark.timeout(60)
@pytest.mark.parametrize('num_workers', [0, 2])
@pytest.mark.parametrize('kw', LOADER_KW, ids=range(len(LOADER_KW)))
def test_batches_equal_torch(kw, num_workers):
    t = list(T.DataLoader(MapDS(), num_workers=num_workers, **kw))
    l = list(L.DataLoader(MapDS(), num_workers=num_workers, **kw))
    assert len(t) == len(l) == len(L.DataLoader(MapDS(), **kw))
    for a, b in zip(t, l): assert_same(a, b)

class BigDS:
    "Batches big enough to travel through shared memory."
    def __len__(self): return 16
    def __getitem__(self, i): return np.full((3, 64, 64), i, np.float32), np.full(20000, i, np.float64)

@pytest.mark.timeout(60)
def test_shared_memory_batches_equal_and_cleaned():
    before = shm_entries()
    t = list(T.DataLoader(BigDS(), batch_size=4, num_workers=2))
    l = list(L.DataLoader(BigDS(), batch_size=4, num_workers=2, pin_memory=True))
    for a, b in zip(t, l): assert_same(a, b)
    assert shm_entries() <= before and multiprocessing.active_children() == []

class Stream(L.IterableDataset):
    def __init__(self, n): self.n = n
    def __iter__(self):
        info = L.get_worker_info()
        k, s = (info.id, info.num_workers) if info else (0, 1)
        return iter(range(k, self.n, s))

class TStream(T.IterableDataset):
    def __init__(self, n): self.n = n
    def __iter__(self):
        info = T.get_worker_info()
        k, s = (info.id, info.num_workers) if info else (0, 1)
        return iter(range(k, self.n, s))

@pytest.mark.timeout(60)
@pytest.mark.parametrize('num_workers', [0, 2])
def test_iterable_sharding_matches_torch(num_workers):
    t = [b.tolist() for b in T.DataLoader(TStream(13), batch_size=3, num_workers=num_workers)]
    l = [b.tolist() for b in L.DataLoader(Stream(13), batch_size=3, num_workers=num_workers)]
    assert t == l

class Info(L.Dataset):
    def __len__(self): return 6
    def __getitem__(self, i):
        w = L.get_worker_info()
        import random
        return w.id, w.num_workers, w.seed, random.random(), np.random.rand(), float(lit_torch.rand(1))

@pytest.mark.timeout(60)
def test_worker_info_and_seeding():
    run = lambda s: list(L.DataLoader(Info(), batch_size=3, num_workers=2, generator=lit_torch.Generator().manual_seed(s)))
    a, b, c = run(1), run(1), run(2)
    assert a[0][0].tolist() == [0, 0, 0] and a[1][0].tolist() == [1, 1, 1] and a[0][1].tolist() == [2] * 3
    assert int(a[1][2][0]) == int(a[0][2][0]) + 1
    for k in (3, 4, 5):
        assert a[0][k].tolist() == b[0][k].tolist() and a[0][k].tolist() != a[1][k].tolist() and a[0][k].tolist() != c[0][k].tolist()

@pytest.mark.timeout(60)
def test_worker_init_fn_persistent_and_out_of_order():
    dl = L.DataLoader(range(8), batch_size=2, num_workers=2, persistent_workers=True, worker_init_fn=lambda i: None)
    assert [b.tolist() for b in dl] == [[0, 1], [2, 3], [4, 5], [6, 7]]
    pids = [w.pid for w in dl._iterator._workers]
    assert [b.tolist() for b in dl] == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert [w.pid for w in dl._iterator._workers] == pids
    del dl; gc.collect()
    got = [b.tolist() for b in L.DataLoader(range(8), batch_size=2, num_workers=2, in_order=False)]
    assert sorted(got) == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert multiprocessing.active_children() == []

# ---------------- argument errors ----------------
BAD_ARGS = [dict(num_workers=-1), dict(timeout=-1), dict(prefetch_factor=2), dict(persistent_workers=True),
            dict(batch_sampler=[[0]], batch_size=2), dict(batch_sampler=[[0]], shuffle=True), dict(batch_sampler=[[0]], drop_last=True),
            dict(batch_sampler=[[0]], sampler=[0]), dict(sampler=[0], shuffle=True), dict(batch_size=None, drop_last=True),
            dict(multiprocessing_context='fork'), dict(num_workers=1, multiprocessing_context='nope'),
            dict(num_workers=2, prefetch_factor=-1)]

@pytest.mark.parametrize('kw', BAD_ARGS, ids=range(len(BAD_ARGS)))
def test_loader_argument_errors(kw):
    with pytest.raises(Exception) as te: T.DataLoader(range(4), **kw)
    with pytest.raises(te.type) as le: L.DataLoader(range(4), **kw)
    assert str(le.value)[:40] == str(te.value)[:40]

def test_iterable_dataset_argument_errors_and_setattr():
    for kw in (dict(shuffle=True), dict(sampler=[0])):
        with pytest.raises(ValueError, match='DataLoader with IterableDataset'): L.DataLoader(Stream(3), **kw)
    dl = L.DataLoader(range(3))
    with pytest.raises(ValueError, match='batch_size attribute should not be set'): dl.batch_size = 2

# ---------------- reliability ----------------
class Failing(L.Dataset):
    def __init__(self, mode, at=5): self.mode, self.at = mode, at
    def __len__(self): return 12
    def __getitem__(self, i):
        if i == self.at:
            if self.mode == 'raise': raise ValueError(f"sample {i} is broken")
            if self.mode == 'keyerror': raise KeyError(i)
            if self.mode == 'exit': os._exit(7)
            if self.mode == 'kill': os.kill(os.getpid(), signal.SIGKILL)
            if self.mode == 'sleep': time.sleep(3)
        return np.full(30000, i, np.float32)  # big enough for shared memory

def clean(before):
    gc.collect()
    deadline = time.time() + 5
    while multiprocessing.active_children() and time.time() < deadline: time.sleep(0.05)
    assert multiprocessing.active_children() == []
    assert shm_entries() <= before

@pytest.mark.timeout(60)
@pytest.mark.parametrize('mode,exc', [('raise', ValueError), ('keyerror', KeyError)])
def test_worker_exception_surfaces(mode, exc):
    before = shm_entries()
    with pytest.raises(exc) as e:
        for _ in L.DataLoader(Failing(mode), batch_size=2, num_workers=2): pass
    msg = str(e.value)
    assert "Caught" in msg and "in DataLoader worker process 0" in msg
    assert "Original Traceback (most recent call last)" in msg and "__getitem__" in msg
    if mode == 'raise': assert "sample 5 is broken" in msg
    del e
    clean(before)

@pytest.mark.timeout(60)
@pytest.mark.parametrize('mode,text', [('exit', 'exited unexpectedly with exit code 7'), ('kill', 'is killed by signal: Killed')])
def test_dead_worker_raises_quickly(mode, text):
    before, t0 = shm_entries(), time.time()
    with pytest.raises(RuntimeError, match=text) as e:
        for _ in L.DataLoader(Failing(mode), batch_size=2, num_workers=2): pass
    assert time.time() - t0 < 10 and "DataLoader worker 0 (pid" in str(e.value)
    del e
    clean(before)

@pytest.mark.timeout(60)
def test_timeout_raises():
    before = shm_entries()
    with pytest.raises(RuntimeError, match="DataLoader timed out after 0.5 seconds"):
        for _ in L.DataLoader(Failing('sleep', at=0), batch_size=2, num_workers=2, timeout=0.5): pass
    clean(before)

@pytest.mark.timeout(60)
@pytest.mark.parametrize('how', ['break', 'del', 'exception', 'persistent_del'])
def test_early_exit_frees_workers_and_shm(how):
    before = shm_entries()
    dl = L.DataLoader(Failing('none'), batch_size=2, num_workers=2, persistent_workers=how == 'persistent_del')
    if how == 'break':
        for i, b in enumerate(dl):
            if i == 1: break
        del b
    elif how == 'del':
        it = iter(dl); next(it); time.sleep(0.3)  # let prefetched batches pile up in shared memory
        assert len(multiprocessing.active_children()) == 2
        del it
    elif how == 'exception':
        def train():
            for b in dl: raise ZeroDivisionError
        with pytest.raises(ZeroDivisionError): train()
    else:
        for i, b in enumerate(dl):
            if i == 1: break
        del b, dl
    clean(before)

@pytest.mark.timeout(60)
def test_workers_killed_externally():
    before = shm_entries()
    it = iter(L.DataLoader(Failing('none'), batch_size=2, num_workers=2))
    next(it)
    os.kill(it._workers[1].pid, signal.SIGKILL)
    with pytest.raises(RuntimeError, match=r"DataLoader worker 1 \(pid \d+\) is killed by signal: Killed"):
        for _ in it: pass
    del it
    clean(before)

@pytest.mark.timeout(60)
def test_spawn_context():
    got = [b.tolist() for b in L.DataLoader(range(6), batch_size=3, num_workers=2, multiprocessing_context='spawn')]
    assert got == [[0, 1, 2], [3, 4, 5]]

def test_pin_memory_single_process_and_tensor_methods():
    got = list(L.DataLoader(range(4), batch_size=2, pin_memory=True))
    assert [b.tolist() for b in got] == [[0, 1], [2, 3]]
    t = lit_torch.ones(2)
    assert t.pin_memory() is t and not t.is_pinned()


# ---------------------------------------------------------------- default_collate against torch, every input kind its docs list
def _collate_cases(T):
    return {'tensor+int': [T.tensor([1.]), 3], 'tensor+ndarray': [T.ones(2), np.ones(2)], 'tensor+None': [T.ones(1), None],
            'np int64+float32': [np.int64(1), np.float32(2)], 'np float32': [np.float32(1), np.float32(2)],
            'np int16': [np.int16(1), np.int16(2)], 'np bool': [np.bool_(1), np.bool_(0)], 'np int64+int': [np.int64(1), 3],
            'np 0-d f32+f64': [np.array(1., np.float32), np.array(2.)], 'int+tensor': [3, T.tensor(1.)],
            'int+float': [1, 2.5], 'float+int': [2.0, 1], 'bools': [True, False], 'ndarray+tensor': [np.ones(2), T.ones(2)],
            'objects': [object(), object()], 'str arrays': [np.array(['a']), np.array(['b'])], 'None': [None, None],
            'dict keys differ': [{'a': 1}, {'b': 2}], 'uneven lists': [[1, 2], [1]], 'tuple+int': [(1,), 2],
            'bytes': [b'a', b'b'], 'strs': ['a', 'b'], 'shapes differ': [T.ones(2), T.ones(3)],
            'dtypes differ': [T.ones(2), T.ones(2, dtype=T.int64)]}

@pytest.mark.parametrize('case', list(_collate_cases(torch)))
def test_default_collate_matches_torch(case):
    def run(T):
        try:
            r = T.utils.data.default_collate(_collate_cases(T)[case])
            return ('ok', str(r.dtype).replace('torch.', '') if hasattr(r, 'dtype') else repr(r))
        except Exception as e: return (type(e).__name__, str(e).split('\n')[0])
    assert run(lit_torch) == run(torch)
