"""Checkpoints both ways with real PyTorch: torch.save -> lit_torch.load and lit_torch.save -> torch.load, for every dtype,
views and shared storage, Parameters, state dicts, optimizer states, containers, whole modules; no loader entry point runs
code from a file; saves are atomic; map_location, mmap, safe_globals; safetensors key order and its three old bugs."""
import collections, errno, importlib, io, json, math, mmap, os, pickle, signal, stat, subprocess, sys, textwrap, time, zipfile
from collections import OrderedDict
from pathlib import Path
import numpy as np
import pytest
import torch
import lit_torch as lt
import lit_torch.safetensors
import lit_torch.serialization as S
from op_helpers import check_same_error

ROOT = Path(__file__).resolve().parent.parent
DTYPES = ['float16', 'float32', 'float64', 'int8', 'int16', 'int32', 'int64', 'uint8', 'bool'] + (['bfloat16'] if hasattr(lt, 'bfloat16') else [])

def rand_array(dtype, shape, seed=0):
    "Seeded random values of `dtype` (never all zeros)."
    rng = np.random.default_rng(seed)
    if dtype == 'bool': return np.asarray(rng.random(shape) > 0.5)
    if dtype[0] in 'iu':
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -1000), min(info.max, 1000), shape, dtype=dtype, endpoint=True)
    return rng.standard_normal(shape).astype(dtype)

def lib_dtype(m, name): return getattr(m, name)
def to_np(x): return x.detach().cpu().numpy()

def assert_same_tensor(l, t):
    "A lit_torch tensor and a torch tensor agree in type, dtype, shape, strides, offset, requires_grad and values."
    assert repr(l.dtype) == repr(t.dtype), (l.dtype, t.dtype)
    assert tuple(l.shape) == tuple(t.shape)
    assert l.stride() == t.stride(), (l.stride(), t.stride())
    assert l.storage_offset() == t.storage_offset()
    assert l.requires_grad == t.requires_grad
    assert isinstance(l, lt.nn.Parameter) == isinstance(t, torch.nn.Parameter)
    np.testing.assert_array_equal(to_np(l), t.detach().numpy())

def torch_to_lit(obj, tmp_path, **kw):
    torch.save(obj, tmp_path / 'from_torch.pt')
    return lt.load(tmp_path / 'from_torch.pt', **kw)

def lit_to_torch(obj, tmp_path, **kw):
    lt.save(obj, tmp_path / 'from_lit.pt')
    return torch.load(tmp_path / 'from_lit.pt', **kw)

# ---------------------------------------------------------------- tensors, dtypes, shapes, strides

@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', [(), (0,), (5,), (2, 3, 4), (3, 0, 2)])
def test_tensor_of_every_dtype_both_ways(tmp_path, dtype, shape):
    if dtype == 'bfloat16':  # torch.from_numpy has no bfloat16: build it in torch, compare through float32
        t = torch.from_numpy(rand_array('float32', shape, seed=len(shape))).to(torch.bfloat16)
        l = torch_to_lit(t, tmp_path)
        assert repr(l.dtype) == repr(t.dtype) and tuple(l.shape) == tuple(t.shape) and l.stride() == t.stride()
        np.testing.assert_array_equal(l.float().numpy(), t.float().numpy())
        back = lit_to_torch(l, tmp_path)
        assert back.dtype == torch.bfloat16 and torch.equal(back, t)
        return
    a = rand_array(dtype, shape, seed=len(shape))
    assert_same_tensor(torch_to_lit(torch.from_numpy(a.copy()), tmp_path), torch.from_numpy(a))
    assert_same_tensor(lt.from_numpy(a), lit_to_torch(lt.from_numpy(a.copy()), tmp_path))

def test_non_contiguous_and_expanded_both_ways(tmp_path):
    a = rand_array('float32', (4, 6), seed=3)
    for m, back in ((torch, lambda o: torch_to_lit(o, tmp_path)), (lt, lambda o: lit_to_torch(o, tmp_path))):
        x = m.from_numpy(a.copy())
        obj = {'T': x.t(), 'step': x[:, ::2], 'expand': x[:, :1].expand(4, 5), 'narrow': x[1:3, 2:5]}
        got = back(obj)
        for k in obj:
            l, t = (got[k], obj[k]) if m is torch else (obj[k], got[k])
            assert_same_tensor(l, t)

def views(m, base):
    return {'base': base, 'slice': base[2:7], 'T': base.view(3, 4).t(), 'expand': base[:4].view(4, 1).expand(4, 3),
            'step': base[::3], 'other': base.clone()}

@pytest.mark.parametrize('direction', ['torch_to_lit', 'lit_to_torch'])
def test_views_keep_their_shared_storage(tmp_path, direction):
    a = rand_array('float32', (12,), seed=4)
    src_m = torch if direction == 'torch_to_lit' else lt
    src = views(src_m, src_m.from_numpy(a.copy()))
    got = torch_to_lit(src, tmp_path) if direction == 'torch_to_lit' else lit_to_torch(src, tmp_path)
    for k in src:
        l, t = (got[k], src[k]) if direction == 'torch_to_lit' else (src[k], got[k])
        assert_same_tensor(l, t)
    ptrs = {k: v.untyped_storage().data_ptr() for k, v in got.items()}
    assert len({ptrs[k] for k in ('base', 'slice', 'T', 'expand', 'step')}) == 1  # one storage under all the views
    assert ptrs['other'] != ptrs['base']
    got['base'][3] = 99.0  # a write through one view shows in the others
    assert float(got['slice'][1]) == 99.0 and float(got['T'][3, 0]) == 99.0 and float(got['step'][1]) == 99.0

def test_one_storage_is_one_record(tmp_path):
    x = lt.randn(100)
    lt.save({'a': x, 'b': x[10:20], 'c': x.view(10, 10)}, tmp_path / 'v.pt')
    names = zipfile.ZipFile(tmp_path / 'v.pt').namelist()
    assert [n for n in names if '/data/' in n] == ['v/data/0']

def test_same_bytes_as_different_dtypes_refused_like_torch():
    a = np.arange(4, dtype=np.float32)
    with pytest.raises(RuntimeError) as t: torch.save([torch.from_numpy(a), torch.from_numpy(a).view(torch.int32)], io.BytesIO())
    with pytest.raises(RuntimeError) as l: lt.save([lt.from_numpy(a), lt.from_numpy(a.view(np.int32))], io.BytesIO())
    assert str(l.value) == str(t.value)

def test_negative_strides_save_as_a_copy(tmp_path):
    a = np.arange(6, dtype=np.float32)
    back = lit_to_torch({'rev': lt.from_numpy(a[::-1])}, tmp_path)
    assert back['rev'].tolist() == a[::-1].tolist() and back['rev'].stride() == (1,)

def test_requires_grad_and_parameters_both_ways(tmp_path):
    a, b = rand_array('float32', (3, 2), 5), rand_array('float32', (4,), 6)
    for m, back in ((torch, lambda o: torch_to_lit(o, tmp_path)), (lt, lambda o: lit_to_torch(o, tmp_path))):
        x = m.from_numpy(a.copy()).requires_grad_()
        obj = {'p': m.nn.Parameter(m.from_numpy(a.copy())), 'frozen': m.nn.Parameter(m.from_numpy(b.copy()), requires_grad=False),
               'leaf': x, 'nonleaf': x * 2, 'int': m.from_numpy(np.arange(3))}
        got = back(obj)
        for k in obj:
            l, t = (got[k], obj[k]) if m is torch else (obj[k], got[k])
            assert_same_tensor(l, t)
            assert (got[k].is_leaf, got[k].grad_fn) == (True, None)

def test_parameter_with_attributes_both_ways(tmp_path):
    for m, back in ((torch, lambda o: torch_to_lit(o, tmp_path)), (lt, lambda o: lit_to_torch(o, tmp_path))):
        p = m.nn.Parameter(m.ones(2)); p.tag = 'embedding'
        got = back([p])[0]
        assert got.tag == 'embedding' and got.requires_grad

# ---------------------------------------------------------------- files byte for byte

def file_diff(a, b):
    "Positions where two torch.save files differ, and the positions of the serialization id's digits and CRCs."
    d = a.index(b'/.data/serialization_id') + len('/.data/serialization_id')
    d += 4 + int.from_bytes(a[d + 2:d + 4], 'little')
    c = a.rindex(b'PK\x01\x02', 0, a.rindex(b'/.data/serialization_id'))
    allowed = set(range(d, d + 40)) | set(range(d + 44, d + 48)) | set(range(c + 16, c + 20))
    return {i for i, (x, y) in enumerate(zip(a, b)) if x != y}, allowed

def test_files_are_torchs_byte_for_byte(tmp_path):
    (tmp_path / 'l').mkdir(); (tmp_path / 't').mkdir()
    tnet = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.LayerNorm(3), torch.nn.Linear(3, 2))
    lnet = lt.nn.Sequential(lt.nn.Linear(4, 3), lt.nn.LayerNorm(3), lt.nn.Linear(3, 2))
    lnet.load_state_dict({k: lt.from_numpy(v.detach().numpy().copy()) for k, v in tnet.state_dict().items()})
    for obj_t, obj_l in [(tnet.state_dict(), lnet.state_dict()), ({'x': torch.arange(10.)[2:], 'n': [1, 'a', None]},
                                                                 {'x': lt.arange(10.)[2:], 'n': [1, 'a', None]})]:
        torch.save(obj_t, tmp_path / 't' / 'ckpt.pt'); lt.save(obj_l, tmp_path / 'l' / 'ckpt.pt')
        a, b = (tmp_path / 'l' / 'ckpt.pt').read_bytes(), (tmp_path / 't' / 'ckpt.pt').read_bytes()
        assert len(a) == len(b)
        diff, allowed = file_diff(a, b)
        assert diff <= allowed, sorted(diff - allowed)[:10]
    buf_t, buf_l = io.BytesIO(), io.BytesIO()
    torch.save(torch.ones(3), buf_t); lt.save(lt.ones(3), buf_l)
    assert zipfile.ZipFile(buf_l).namelist() == zipfile.ZipFile(buf_t).namelist()  # 'archive/...' for buffers

# ---------------------------------------------------------------- state dicts, optimizers, containers

def make_net(m):
    nn = m.nn
    return nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.LayerNorm(8), nn.Linear(8, 3))

def copy_weights(tnet, lnet): lnet.load_state_dict({k: lt.from_numpy(v.detach().numpy().copy()) for k, v in tnet.state_dict().items()})

def test_state_dicts_with_metadata_both_ways(tmp_path):
    torch.manual_seed(0)
    tnet, lnet = make_net(torch), make_net(lt)
    tnet.train(); tnet(torch.randn(6, 4))  # running stats and num_batches_tracked move
    copy_weights(tnet, lnet)
    got = torch_to_lit(tnet.state_dict(), tmp_path)
    assert list(got) == list(tnet.state_dict()) and dict(got._metadata) == dict(tnet.state_dict()._metadata)
    for k, v in tnet.state_dict().items(): assert_same_tensor(got[k], v)
    back = lit_to_torch(lnet.state_dict(), tmp_path)
    assert list(back) == list(lnet.state_dict()) and dict(back._metadata) == dict(lnet.state_dict()._metadata)
    t2 = make_net(torch); t2.load_state_dict(back); t2.eval(); lnet.eval()
    x = rand_array('float32', (5, 4), 7)
    np.testing.assert_allclose(t2(torch.from_numpy(x)).detach().numpy(), to_np(lnet(lt.from_numpy(x))), rtol=1e-5, atol=1e-6)

def step(m, net, opt, x):
    opt.zero_grad(); net(x).pow(2).sum().backward(); opt.step()

@pytest.mark.parametrize('direction', ['torch_to_lit', 'lit_to_torch'])
def test_optimizer_state_dicts_both_ways(tmp_path, direction):
    torch.manual_seed(1)
    tnet, lnet = torch.nn.Linear(4, 3), lt.nn.Linear(4, 3)
    copy_weights(tnet, lnet)
    topt, lopt = torch.optim.Adam(tnet.parameters(), lr=0.01, amsgrad=True), lt.optim.Adam(lnet.parameters(), lr=0.01, amsgrad=True)
    xs = [rand_array('float32', (5, 4), s) for s in range(4)]
    for x in xs[:2]: step(torch, tnet, topt, torch.from_numpy(x)); step(lt, lnet, lopt, lt.from_numpy(x))
    if direction == 'torch_to_lit':
        sd = torch_to_lit({'model': tnet.state_dict(), 'optim': topt.state_dict()}, tmp_path)
        net2, opt2 = lt.nn.Linear(4, 3), None
        net2.load_state_dict(sd['model']); opt2 = lt.optim.Adam(net2.parameters(), lr=0.01, amsgrad=True); opt2.load_state_dict(sd['optim'])
        for x in xs[2:]: step(torch, tnet, topt, torch.from_numpy(x)); step(lt, net2, opt2, lt.from_numpy(x))
        np.testing.assert_allclose(to_np(net2.weight), tnet.weight.detach().numpy(), rtol=1e-5, atol=1e-6)
    else:
        sd = lit_to_torch({'model': lnet.state_dict(), 'optim': lopt.state_dict()}, tmp_path)
        net2 = torch.nn.Linear(4, 3); net2.load_state_dict(sd['model'])
        opt2 = torch.optim.Adam(net2.parameters(), lr=0.01, amsgrad=True); opt2.load_state_dict(sd['optim'])
        for x in xs[2:]: step(lt, lnet, lopt, lt.from_numpy(x)); step(torch, net2, opt2, torch.from_numpy(x))
        np.testing.assert_allclose(net2.weight.detach().numpy(), to_np(lnet.weight), rtol=1e-5, atol=1e-6)
    assert sd['optim']['param_groups'][0]['params'] == [0, 1]

def nested(m):
    return {'ints': [0, 1, -1, 255, 256, 65535, 65536, 2**31 - 1, 2**31, -2**31 - 1, 2**64, -2**70], 'floats': (0.5, -0.0, math.inf, 1e-300),
            'strings': ['', 'ascii', 'ünïcødé ✓', 'x' * 300], 'none': None, 'bools': (True, False), 'bytes': b'\x00\xffraw',
            'set': {1, 2, 3}, 'complex': 1 + 2j, 'od': OrderedDict([('z', 1), ('a', [m.ones(2)])]), 'empty': ([], (), {}),
            'deep': {'a': {'b': {'c': [({'d': m.zeros(1)},)]}}}, 7: 'int key', (1, 2): 'tuple key'}

def plain(o):
    "Containers with tensors replaced by lists, to compare across libraries."
    if isinstance(o, (torch.Tensor, lt.Tensor)): return ('tensor', o.tolist())
    if isinstance(o, dict): return (type(o).__name__, [(plain(k), plain(v)) for k, v in o.items()])
    if isinstance(o, (list, tuple)): return (type(o).__name__, [plain(v) for v in o])
    return o

@pytest.mark.parametrize('direction', ['torch_to_lit', 'lit_to_torch'])
def test_nested_containers_both_ways(tmp_path, direction):
    src = nested(torch if direction == 'torch_to_lit' else lt)
    got = torch_to_lit(src, tmp_path) if direction == 'torch_to_lit' else lit_to_torch(src, tmp_path)
    assert plain(got) == plain(src)
    assert math.copysign(1, got['floats'][1]) == -1 and type(got['od']) is OrderedDict

# ---------------------------------------------------------------- weights_only=False: ndarrays and whole modules

def test_ndarray_both_ways(tmp_path):
    obj = {'arr': np.arange(6, dtype=np.int64).reshape(2, 3), 'f': np.float64(1.5)}
    for got in (torch_to_lit(obj, tmp_path, weights_only=False), lit_to_torch(obj, tmp_path, weights_only=False)):
        np.testing.assert_array_equal(got['arr'], obj['arr']); assert got['f'] == 1.5
    torch.save(obj, tmp_path / 'np.pt')
    e = check_same_error(lambda m: m.load(tmp_path / 'np.pt'))
    assert 'was not an allowed global' in str(e)
    names = torch.serialization.get_unsafe_globals_in_checkpoint(tmp_path / 'np.pt')
    assert sorted(lt.serialization.get_unsafe_globals_in_checkpoint(tmp_path / 'np.pt')) == sorted(names)
    objs = [getattr(importlib.import_module(n.rpartition('.')[0]), n.rpartition('.')[2]) for n in names]
    with torch.serialization.safe_globals(objs), lt.serialization.safe_globals(objs): e = check_same_error(lambda m: m.load(tmp_path / 'np.pt'))
    assert 'Int64DType' in str(e)  # BUILD on the dtype needs its class too, in both
    objs += [type(np.dtype('int64')), type(np.dtype('float64'))]
    with torch.serialization.safe_globals(objs): want = torch.load(tmp_path / 'np.pt')
    with lt.serialization.safe_globals(objs): got = lt.load(tmp_path / 'np.pt')
    np.testing.assert_array_equal(got['arr'], want['arr'])

def test_whole_modules_both_ways(tmp_path):
    torch.manual_seed(2)
    tnet = torch.nn.Sequential(torch.nn.Linear(4, 5), torch.nn.ReLU(), torch.nn.LayerNorm(5), torch.nn.Linear(5, 2))
    torch.save(tnet, tmp_path / 'tnet.pt')
    lnet = lt.load(tmp_path / 'tnet.pt', weights_only=False)
    assert type(lnet) is lt.nn.Sequential and [type(c).__name__ for c in lnet] == ['Linear', 'ReLU', 'LayerNorm', 'Linear']
    assert isinstance(lnet[0].weight, lt.nn.Parameter) and lnet[0].weight.requires_grad
    x = rand_array('float32', (3, 4), 8)
    np.testing.assert_allclose(to_np(lnet(lt.from_numpy(x))), tnet(torch.from_numpy(x)).detach().numpy(), rtol=1e-5, atol=1e-6)
    lt.save(lnet, tmp_path / 'lnet.pt')
    back = torch.load(tmp_path / 'lnet.pt', weights_only=False)
    assert type(back) is torch.nn.Sequential
    np.testing.assert_allclose(back(torch.from_numpy(x)).detach().numpy(), tnet(torch.from_numpy(x)).detach().numpy(), rtol=1e-6)
    again = lt.load(tmp_path / 'lnet.pt', weights_only=False)  # lit_torch's own whole-module file
    np.testing.assert_allclose(to_np(again(lt.from_numpy(x))), to_np(lnet(lt.from_numpy(x))), rtol=1e-6)
    check_same_error(lambda m: m.load(tmp_path / 'lnet.pt'))  # refused with weights_only=True in both

def test_missing_class_is_named(tmp_path):
    torch.save(torch.nn.Bilinear(2, 2, 1), tmp_path / 'bil.pt')
    if hasattr(lt.nn, 'Bilinear'): pytest.skip('lit_torch has Bilinear now')
    with pytest.raises(AttributeError, match='torch.nn.modules.linear.Bilinear'): lt.load(tmp_path / 'bil.pt', weights_only=False)

# ---------------------------------------------------------------- no entry point runs code from a file

class SystemCall:
    def __init__(self, marker): self.marker = marker
    def __reduce__(self): return os.system, (f'touch {self.marker}',)

class ExecCall:
    def __init__(self, marker): self.marker = marker
    def __reduce__(self): return exec, (f"open({str(self.marker)!r}, 'w').close()",)

def evil_files(d):
    "name -> path of files that would create `d/marker` if loaded by a trusting unpickler."
    marker, files = d / 'marker', {}
    lt.save({'w': lt.arange(3.), 'x': SystemCall(marker)}, d / 'lit_system.pt'); files['lit_system'] = d / 'lit_system.pt'
    torch.save({'w': torch.arange(3.), 'x': ExecCall(marker)}, d / 'torch_exec.pt'); files['torch_exec'] = d / 'torch_exec.pt'
    (d / 'raw.pkl').write_bytes(pickle.dumps(SystemCall(marker), protocol=2)); files['raw_pickle'] = d / 'raw.pkl'
    (d / 'raw4.pkl').write_bytes(pickle.dumps([ExecCall(marker)], protocol=4)); files['raw_pickle_proto4'] = d / 'raw4.pkl'
    (d / 'evil.safetensors').write_bytes((d / 'lit_system.pt').read_bytes()); files['named_safetensors'] = d / 'evil.safetensors'
    torch.save({'w': torch.ones(2), 'x': ExecCall(marker)}, d / 'legacy.pt', _use_new_zipfile_serialization=False); files['torch_legacy'] = d / 'legacy.pt'
    return marker, files

ENTRY_POINTS = {
    'path': lambda p: lt.load(str(p)),
    'pathlib': lambda p: lt.load(p),
    'file': lambda p: lt.load(open(p, 'rb')),
    'bytesio': lambda p: lt.load(io.BytesIO(p.read_bytes())),
    'mmap': lambda p: lt.load(p, mmap=True),
    'map_location_str': lambda p: lt.load(p, map_location='cpu'),
    'map_location_device': lambda p: lt.load(p, map_location=lt.device('cpu:1')),
    'map_location_dict': lambda p: lt.load(p, map_location={'cpu': 'cpu:1'}),
    'map_location_callable': lambda p: lt.load(p, map_location=lambda s, loc: s),
    'weights_only_true': lambda p: lt.load(p, weights_only=True),
    'load_safetensors': lambda p: lt.serialization.load_safetensors(p),
    'unsafe_globals': lambda p: lt.serialization.get_unsafe_globals_in_checkpoint(p),
    'unpickler_load': lambda p: lt._weights_only_unpickler.load(io.BytesIO(p.read_bytes())),
}

@pytest.mark.filterwarnings('ignore:Detected pickle protocol 4')
@pytest.mark.parametrize('entry', list(ENTRY_POINTS))
def test_no_entry_point_runs_code_from_a_file(tmp_path, entry):
    marker, files = evil_files(tmp_path)
    for name, path in files.items():
        try: ENTRY_POINTS[entry](path)
        except (pickle.UnpicklingError, RuntimeError, ValueError, EOFError) as e:
            if isinstance(e, pickle.UnpicklingError) and entry != 'unpickler_load': assert 'Weights only load failed' in str(e), (name, e)
        assert not marker.exists(), f'{entry} ran code from {name}'

@pytest.mark.filterwarnings('ignore:Detected pickle protocol 4')
def test_forced_weights_only_overrides_false(tmp_path, monkeypatch):
    marker, files = evil_files(tmp_path)
    monkeypatch.setenv('TORCH_FORCE_WEIGHTS_ONLY_LOAD', '1')
    for path in files.values():
        with pytest.raises((pickle.UnpicklingError, RuntimeError)): lt.load(path, weights_only=False)
    assert not marker.exists()

def test_the_evil_files_are_evil(tmp_path):
    "The same files do run code when trusted, so the test above can fail."
    marker, files = evil_files(tmp_path)
    for name in ('lit_system', 'torch_exec', 'raw_pickle', 'torch_legacy'):
        try: lt.load(files[name], weights_only=False)
        except RuntimeError: pass  # raw pickles are not checkpoints, but they ran first
        assert marker.exists(), name
        marker.unlink()

def test_refusals_are_torchs(tmp_path):
    marker, files = evil_files(tmp_path)
    for name in ('lit_system', 'torch_exec', 'raw_pickle', 'torch_legacy'):
        with pytest.raises(pickle.UnpicklingError) as t: torch.load(files[name])
        with pytest.raises(pickle.UnpicklingError) as l: lt.load(files[name])
        assert str(l.value) == str(t.value), name
    assert not marker.exists()

CRAFTED = {
    'build_on_a_class': b'\x80\x02ctorch\ndevice\nq\x00}q\x01b.',
    'newobj_of_a_function': b'\x80\x02ctorch._utils\n_rebuild_tensor_v2\n)\x81.',
    'persistent_id_not_storage': b'\x80\x02X\x06\x00\x00\x00moduleq\x00\x85Q.',
    'reduce_on_a_string': b'\x80\x02X\x01\x00\x00\x00a)R.',
    'append_to_a_dict': b'\x80\x02}K\x01a.',
    'blocked_module': b'\x80\x02cos\nsystem\nX\x02\x00\x00\x00id\x85R.',
    'stack_underflow': b'\x80\x02t.',
    'truncated': b'\x80\x02X\x10\x00\x00\x00ab',
}

@pytest.mark.parametrize('name', list(CRAFTED))
def test_crafted_pickles_refused(tmp_path, name):
    zw = io.BytesIO(); w = S._ZipWriter(zw, 'archive')
    w.write_record('data.pkl', CRAFTED[name]); w.write_record('byteorder', b'little'); w.write_end_of_file()
    with pytest.raises((pickle.UnpicklingError, EOFError)): lt.load(io.BytesIO(zw.getvalue()))
    with pytest.raises(Exception): torch.load(io.BytesIO(zw.getvalue()))  # torch lets some out as IndexError or AttributeError

def test_out_of_bounds_views_refused(tmp_path):
    zw = io.BytesIO(); w = S._ZipWriter(zw, 'archive')
    lt.save(lt.arange(4.), zw)
    raw = bytearray(zw.getvalue())
    pkl_at = raw.index(b'K\x00K\x04\x85')  # offset 0, size (4,)
    raw[pkl_at:pkl_at + 5] = b'K\x03K\x04\x85'  # offset 3: reaches past the end of the 4-element storage
    check_same_error(lambda m: m.load(io.BytesIO(bytes(raw))))

# ---------------------------------------------------------------- safe globals

class Point:
    def __init__(self, x, y): self.x, self.y = x, y
    def __eq__(self, o): return (self.x, self.y) == (o.x, o.y)

def test_safe_globals_like_torch(tmp_path):
    torch.save({'p': Point(1, 2)}, tmp_path / 'pt.pt'); lt.save({'p': Point(1, 2)}, tmp_path / 'lp.pt')
    for path in (tmp_path / 'pt.pt', tmp_path / 'lp.pt'):
        with pytest.raises(pickle.UnpicklingError) as t: torch.load(path)
        with pytest.raises(pickle.UnpicklingError) as l: lt.load(path)
        assert str(l.value) == str(t.value) and 'test_serialization.Point' in str(l.value)
        with lt.serialization.safe_globals([Point]): assert lt.load(path)['p'] == Point(1, 2)
        assert lt.serialization.get_safe_globals() == []
        lt.serialization.add_safe_globals([Point])
        try:
            assert lt.serialization.get_safe_globals() == [Point] and lt.load(path)['p'] == Point(1, 2)
        finally: lt.serialization.clear_safe_globals()
        with lt.serialization.safe_globals([(Point, 'test_serialization.Point')]): assert lt.load(path)['p'] == Point(1, 2)
        with pytest.raises(pickle.UnpicklingError): lt.load(path)
    assert lt.serialization.get_unsafe_globals_in_checkpoint(tmp_path / 'pt.pt') == ['test_serialization.Point']

def test_safe_global_lit_torch_class_matches_torch_name(tmp_path):
    torch.save(torch.nn.ReLU(), tmp_path / 'relu.pt')
    with lt.serialization.safe_globals([lt.nn.ReLU]): assert type(lt.load(tmp_path / 'relu.pt')) is lt.nn.ReLU

# ---------------------------------------------------------------- atomic saves

def test_failure_mid_write_keeps_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / 'ckpt.pt'
    lt.save({'v': lt.arange(5.)}, target)
    old = target.read_bytes()
    real = S._ZipWriter.write_record
    def failing(self, name, data):
        if name.startswith('data/1'): raise OSError(errno.ENOSPC, 'No space left on device')
        return real(self, name, data)
    monkeypatch.setattr(S._ZipWriter, 'write_record', failing)
    for tmpfile in (True, False):
        if not tmpfile: monkeypatch.delattr(os, 'O_TMPFILE', raising=False)
        with pytest.raises(OSError, match='No space left'): lt.save({'a': lt.randn(1000), 'b': lt.randn(1000)}, target)
        assert target.read_bytes() == old and os.listdir(tmp_path) == ['ckpt.pt']

def test_failed_fsync_keeps_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / 'ckpt.pt'
    target.write_bytes(b'old')
    monkeypatch.setattr(S.os, 'fsync', lambda fd: (_ for _ in ()).throw(OSError(errno.EIO, 'Input/output error')))
    with pytest.raises(OSError, match='Input/output'): lt.save(lt.ones(3), target)
    assert target.read_bytes() == b'old' and os.listdir(tmp_path) == ['ckpt.pt']

KILLED_SAVE = """
import sys, time
sys.path.insert(0, {root!r})
import lit_torch as lt, lit_torch.serialization as S
real = S._ZipWriter.write_record
def slow(self, name, data):
    real(self, name, data)
    if name == 'data/0': print('mid-save', flush=True); time.sleep(60)
S._ZipWriter.write_record = slow
lt.save({{'a': lt.randn(4_000_000), 'b': lt.randn(1000)}}, {target!r})
"""

def test_sigkill_mid_save_leaves_the_old_file_and_nothing_else(tmp_path):
    target = tmp_path / 'ckpt.pt'
    lt.save({'v': lt.arange(5.)}, target)
    old = target.read_bytes()
    p = subprocess.Popen([sys.executable, '-c', KILLED_SAVE.format(root=str(ROOT), target=str(target))], stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == 'mid-save'  # 16 MB of the new file written, not yet renamed
        open_files = [os.readlink(f'/proc/{p.pid}/fd/{fd}') for fd in os.listdir(f'/proc/{p.pid}/fd')]
        assert any(str(tmp_path) in f for f in open_files)  # the new file is being written in the same directory
    finally:
        p.send_signal(signal.SIGKILL); p.wait()
    assert target.read_bytes() == old
    assert os.listdir(tmp_path) == ['ckpt.pt']  # O_TMPFILE: the unnamed file went with the process
    assert lt.load(target)['v'].tolist() == [0., 1., 2., 3., 4.]

def test_mode_symlink_and_special_files(tmp_path):
    target = tmp_path / 'ckpt.pt'
    lt.save(lt.ones(2), target)
    umask = os.umask(0); os.umask(umask)
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o666 & ~umask
    os.chmod(target, 0o640); lt.save(lt.ones(3), target)
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640
    link = tmp_path / 'latest.pt'; link.symlink_to(target)
    lt.save(lt.ones(4), link)
    assert link.is_symlink() and lt.load(target).shape == (4,)
    lt.save(lt.ones(4), '/dev/null')  # not a regular file: written in place, as torch does
    check_same_error(lambda m: m.save(m.ones(1), tmp_path / 'no' / 'such' / 'dir.pt'))

# ---------------------------------------------------------------- map_location

@pytest.mark.parametrize('map_location,want', [(None, 'cpu'), ('cpu', 'cpu'), ('cpu:1', 'cpu:1'), (lt.device('cpu', 2), 'cpu:2'),
                                                ({'cpu': 'cpu:3'}, 'cpu:3'), ({'cuda:0': 'cpu:3'}, 'cpu'), (b'cpu:1', 'cpu:1')])
def test_map_location(tmp_path, map_location, want):
    a = rand_array('float32', (3, 4), 9)
    x = torch.from_numpy(a)
    got = torch_to_lit({'x': x, 'v': x[1:]}, tmp_path, map_location=map_location)
    assert got['x'].device == lt.device(want) and got['v'].device == lt.device(want)
    np.testing.assert_array_equal(to_np(got['x']), a)
    assert got['v'].untyped_storage().data_ptr() == got['x'].untyped_storage().data_ptr()

def test_map_location_callable(tmp_path):
    torch.save({'x': torch.ones(2)}, tmp_path / 'c.pt')
    seen = []
    def where(storage, location):
        seen.append((type(storage).__name__, location, storage.nbytes()))
        return storage.to('cpu:1')
    assert lt.load(tmp_path / 'c.pt', map_location=where)['x'].device == lt.device('cpu:1')
    assert seen == [('UntypedStorage', 'cpu', 8)]
    assert lt.load(tmp_path / 'c.pt', map_location=lambda s, loc: None)['x'].device == lt.device('cpu')

def test_cuda_tagged_file_needs_map_location(tmp_path, monkeypatch):
    with monkeypatch.context() as mp:
        mp.setattr(S, 'location_tag', lambda storage: 'cuda:0')
        lt.save({'x': lt.arange(3.)}, tmp_path / 'gpu.pt')
    assert b'cuda:0' in zipfile.ZipFile(tmp_path / 'gpu.pt').read('gpu/data.pkl')
    if lt._C.cuda_device_count() == 0 and not torch.cuda.is_available():
        e = check_same_error(lambda m: m.load(tmp_path / 'gpu.pt'))
        assert 'map_location' in str(e)
    for ml in ('cpu', {'cuda:0': 'cpu'}, lambda s, loc: s):
        assert lt.load(tmp_path / 'gpu.pt', map_location=ml)['x'].tolist() == [0., 1., 2.]
        assert torch.load(tmp_path / 'gpu.pt', map_location=ml)['x'].tolist() == [0., 1., 2.]

@pytest.mark.skipif(lt._C.cuda_device_count() == 0, reason='needs a GPU (CuPy and a CUDA device)')
def test_cuda_tensors_round_trip(tmp_path):
    x = lt.randn(3, 4, device='cuda')
    lt.save({'x': x, 'v': x[1:]}, tmp_path / 'g.pt')
    got = lt.load(tmp_path / 'g.pt')
    assert got['x'].device == x.device and got['x'].tolist() == x.tolist()
    assert torch.load(tmp_path / 'g.pt', map_location='cpu')['v'].tolist() == x[1:].tolist()
    assert lt.load(tmp_path / 'g.pt', map_location='cpu')['x'].device == lt.device('cpu')

# ---------------------------------------------------------------- mmap

def test_mmap_views_the_file_copy_on_write(tmp_path):
    a = rand_array('float32', (64, 64), 10)
    torch.save({'w': torch.from_numpy(a), 'b': torch.arange(5)}, tmp_path / 'm.pt')
    before = (tmp_path / 'm.pt').read_bytes()
    got = lt.load(tmp_path / 'm.pt', mmap=True)
    np.testing.assert_array_equal(to_np(got['w']), a)
    from lit_torch.storage import _root
    assert type(_root(got['w']._data).base.obj) is mmap.mmap
    got['w'].mul_(2)  # writable, and private: the file does not change
    assert (tmp_path / 'm.pt').read_bytes() == before
    lt.save({'w': lt.from_numpy(a)}, tmp_path / 'l.pt')
    np.testing.assert_array_equal(torch.load(tmp_path / 'l.pt', mmap=True)['w'].numpy(), a)  # torch maps ours too

def test_mmap_shared_writes_through(tmp_path):
    lt.save({'w': lt.zeros(4)}, tmp_path / 's.pt')
    with lt.serialization.set_default_mmap_options(mmap.MAP_SHARED):
        got = lt.load(tmp_path / 's.pt', mmap=True)
        got['w'].add_(1.5)
        del got
    assert lt.serialization.get_default_mmap_options() == mmap.MAP_PRIVATE
    assert lt.load(tmp_path / 's.pt')['w'].tolist() == [1.5] * 4
    assert torch.load(tmp_path / 's.pt')['w'].tolist() == [1.5] * 4

def test_mmap_survives_a_save_over_the_file(tmp_path):
    lt.save({'w': lt.ones(4)}, tmp_path / 'x.pt')
    got = lt.load(tmp_path / 'x.pt', mmap=True)
    lt.save({'w': lt.zeros(4)}, tmp_path / 'x.pt')  # a rename: the mapping keeps the old file
    assert got['w'].tolist() == [1.] * 4 and lt.load(tmp_path / 'x.pt')['w'].tolist() == [0.] * 4

def test_mmap_errors_like_torch(tmp_path):
    torch.save(torch.ones(2), tmp_path / 'z.pt')
    check_same_error(lambda m: m.load(io.BytesIO((tmp_path / 'z.pt').read_bytes()), mmap=True))
    torch.save(torch.ones(2), tmp_path / 'legacy.pt', _use_new_zipfile_serialization=False)
    check_same_error(lambda m: m.load(tmp_path / 'legacy.pt', mmap=True))

# ---------------------------------------------------------------- files, formats, damage

def test_file_kinds(tmp_path):
    x = lt.arange(4.)
    for f in (str(tmp_path / 'a.pt'), tmp_path / 'b.pt'):
        lt.save(x, f); assert lt.load(f).tolist() == x.tolist() and torch.load(f).tolist() == x.tolist()
    with open(tmp_path / 'c.pt', 'wb') as fh: lt.save(x, fh)
    with open(tmp_path / 'c.pt', 'rb') as fh: assert lt.load(fh).tolist() == x.tolist()
    r, w = os.pipe(); os.write(w, b'x'); os.close(w)
    with open(r, 'rb') as pipe: check_same_error(lambda m: m.load(pipe))
    check_same_error(lambda m: m.save(m.ones(1), 42))

@pytest.mark.parametrize('damage', ['truncated', 'garbage', 'empty', 'bad_zip'])
def test_damaged_files_fail_like_torch(tmp_path, damage):
    torch.save({'w': torch.randn(100)}, tmp_path / 'd.pt')
    raw = (tmp_path / 'd.pt').read_bytes()
    bad = {'truncated': raw[:len(raw) // 2], 'garbage': b'hello, this is not a checkpoint', 'empty': b'',
           'bad_zip': raw[:-30] + b'\x00' * 30}[damage]
    (tmp_path / 'd.pt').write_bytes(bad)
    if damage != 'garbage':
        check_same_error(lambda m: m.load(tmp_path / 'd.pt'))
        return
    with pytest.raises(KeyError): torch.load(tmp_path / 'd.pt')  # 'h' reads as BINGET of an empty memo
    with pytest.raises(pickle.UnpicklingError, match='malformed pickle'): lt.load(tmp_path / 'd.pt')

def legacy_obj():
    x = torch.from_numpy(rand_array('float32', (12,), 12))
    return {'x': x, 'slice': x[3:9], 'T': x.view(3, 4).t(), 'p': torch.nn.Parameter(torch.ones(2)), 'i': torch.arange(5),
            'b': torch.tensor([True, False]), 'h': torch.ones(3, dtype=torch.float16), 'nested': [1, 'a', (None, 2.5)]}

@pytest.mark.parametrize('weights_only', [True, False])
def test_legacy_format_from_torch(tmp_path, weights_only):
    src = legacy_obj()
    torch.save(src, tmp_path / 'old.pt', _use_new_zipfile_serialization=False)
    for f in (tmp_path / 'old.pt', io.BytesIO((tmp_path / 'old.pt').read_bytes())):
        got = lt.load(f, weights_only=weights_only)
        for k in src:
            if isinstance(src[k], torch.Tensor): assert_same_tensor(got[k], src[k])
            else: assert got[k] == src[k]
        ptrs = {got[k].untyped_storage().data_ptr() for k in ('x', 'slice', 'T')}
        assert len(ptrs) == 1
    got = lt.load(tmp_path / 'old.pt', map_location='cpu:1', weights_only=weights_only)
    assert got['slice'].device == lt.device('cpu:1') and got['slice'].tolist() == src['slice'].tolist()
    got = lt.load(tmp_path / 'old.pt', map_location=lambda s, loc: s.to('cpu:2'), weights_only=weights_only)
    assert got['x'].device == lt.device('cpu:2') and got['x'].tolist() == src['x'].tolist()

def test_legacy_whole_module_from_torch(tmp_path):
    torch.manual_seed(3)
    tnet = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    torch.save(tnet, tmp_path / 'oldnet.pt', _use_new_zipfile_serialization=False)
    check_same_error(lambda m: m.load(tmp_path / 'oldnet.pt'))  # module ids are refused under weights_only
    lnet = lt.load(tmp_path / 'oldnet.pt', weights_only=False)
    x = rand_array('float32', (2, 3), 13)
    np.testing.assert_allclose(to_np(lnet(lt.from_numpy(x))), tnet(torch.from_numpy(x)).detach().numpy(), rtol=1e-6)

def test_legacy_damage_fails_like_torch(tmp_path):
    torch.save({'w': torch.ones(100)}, tmp_path / 'old.pt', _use_new_zipfile_serialization=False)
    raw = (tmp_path / 'old.pt').read_bytes()
    (tmp_path / 'old.pt').write_bytes(raw[:-100])
    with pytest.raises(RuntimeError): torch.load(tmp_path / 'old.pt')
    with pytest.raises(RuntimeError): lt.load(tmp_path / 'old.pt')

def test_big_endian_files(tmp_path, monkeypatch):
    a = rand_array('float32', (5,), 11)
    monkeypatch.setattr(sys, 'byteorder', 'big')
    lt.save({'x': lt.from_numpy(a.byteswap())}, tmp_path / 'be.pt')  # what a big-endian machine writes
    monkeypatch.undo()
    assert zipfile.ZipFile(tmp_path / 'be.pt').read('be/byteorder') == b'big'
    np.testing.assert_array_equal(torch.load(tmp_path / 'be.pt')['x'].numpy(), a)
    np.testing.assert_array_equal(to_np(lt.load(tmp_path / 'be.pt')['x']), a)

def test_zip64_records(tmp_path, monkeypatch):
    monkeypatch.setattr(S, '_ZIP64_LIMIT', 64)  # every record past 64 bytes takes the >4 GiB path
    sd = {'a': lt.randn(50), 'b': lt.arange(7), 'c': lt.randn(3, 4)}
    lt.save(sd, tmp_path / 'z.pt')
    assert zipfile.ZipFile(tmp_path / 'z.pt').testzip() is None
    for got in (torch.load(tmp_path / 'z.pt'), torch.load(tmp_path / 'z.pt', mmap=True), lt.load(tmp_path / 'z.pt'), lt.load(tmp_path / 'z.pt', mmap=True)):
        for k in sd: np.testing.assert_array_equal(np.asarray(got[k].tolist()), np.asarray(sd[k].tolist()))

def test_disable_byteorder_and_crc_options(tmp_path):
    torch.save(torch.ones(2), tmp_path / 'nb.pt', _disable_byteorder_record=True)
    assert lt.load(tmp_path / 'nb.pt').tolist() == [1., 1.]
    lt.serialization.set_crc32_options(False)
    try: lt.save(lt.ones(2), tmp_path / 'nocrc.pt')
    finally: lt.serialization.set_crc32_options(True)
    assert torch.load(tmp_path / 'nocrc.pt').tolist() == [1., 1.]

# ---------------------------------------------------------------- safetensors: order, the three bugs, old files

def test_key_order_is_kept(tmp_path):
    keys = ['z.weight', 'a.bias', 'm', '10', '9']
    sd = OrderedDict((k, lt.randn(2)) for k in keys)
    lt.save(sd, tmp_path / 'o.pt')
    lt.safetensors.save_file(sd, tmp_path / 'o.safetensors')
    for name in ('o.pt', 'o.safetensors'): assert list(lt.load(tmp_path / name)) == keys
    assert list(torch.load(tmp_path / 'o.pt')) == keys
    from safetensors.torch import load_file
    assert sorted(load_file(str(tmp_path / 'o.safetensors'))) == sorted(keys)

def test_safetensors_both_ways(tmp_path):
    from safetensors.torch import save_file, load_file
    sd = {k: torch.from_numpy(rand_array(d, (2, 3), i)) for i, (k, d) in enumerate([('f', 'float32'), ('h', 'float16'), ('i', 'int64'), ('b', 'bool')])}
    save_file(sd, str(tmp_path / 't.safetensors'))
    for got in (lt.load(tmp_path / 't.safetensors'), lt.serialization.load_safetensors(tmp_path / 't.safetensors', mmap=True),
                lt.serialization.load_safetensors(io.BytesIO((tmp_path / 't.safetensors').read_bytes()))):
        for k in sd: assert_same_tensor(got[k], sd[k])
    lt.serialization.save_safetensors({k: lt.from_numpy(v.numpy()) for k, v in sd.items()}, tmp_path / 'l.safetensors')
    for k, v in load_file(str(tmp_path / 'l.safetensors')).items(): assert_same_tensor(lt.from_numpy(sd[k].numpy()), v)
    check_same_error(lambda m: m.load(tmp_path / 't.safetensors', map_location={'cpu': 'cpu'}))

def write_tree_file(path, tree, tensors=None):
    "A safetensors file with `tree` as its lit_torch.tree metadata, as a hostile writer could make it."
    from safetensors.numpy import save_file
    save_file(tensors or {'w': np.ones(2, np.float32)}, str(path), metadata={'lit_torch.tree': tree})

@pytest.mark.parametrize('tree', ['{', '[' * 100000, '{}', '{"tensor": "nope"}', '{"dict": 5}', '{"dict": [[{"list": []}, {"value": 1}]]}',
                                  '{"list": [' * 500 + ']}' * 500, '{"value": {"a": 1}}', '{"tensor": ["w"]}', '[]', '"w"', 'null'])
def test_crafted_tree_metadata_is_a_clear_error(tmp_path, tree):
    write_tree_file(tmp_path / 'c.safetensors', tree)
    with pytest.raises(RuntimeError, match='invalid lit_torch.tree metadata'): lt.load(tmp_path / 'c.safetensors')

def test_empty_tree_does_not_end_a_map(tmp_path):
    "A bare StopIteration from a load would silently end `map` over several loads; now it is an error."
    write_tree_file(tmp_path / 'ok.safetensors', '{"tensor": "w"}')
    write_tree_file(tmp_path / 'empty.safetensors', '{}')
    with pytest.raises(RuntimeError): list(map(lt.load, [tmp_path / 'ok.safetensors', tmp_path / 'empty.safetensors', tmp_path / 'ok.safetensors']))

def test_metadata_named_key_round_trips(tmp_path):
    sd = OrderedDict([('__metadata__', lt.tensor([1., 2.])), ('w', lt.arange(3)), ('__metadata___', lt.ones(1))])
    for f in (tmp_path / 'k.safetensors', io.BytesIO()):
        lt.serialization.save_safetensors(sd, f)
        if isinstance(f, io.BytesIO): f.seek(0)
        got = lt.serialization.load_safetensors(f)
        assert list(got) == list(sd) and all(got[k].tolist() == sd[k].tolist() for k in sd)

def test_header_is_parsed_once(tmp_path, monkeypatch):
    sd = OrderedDict((f'layer{i}.weight', lt.randn(2)) for i in range(4000))
    lt.serialization.save_safetensors(sd, tmp_path / 'many.safetensors')
    calls = []
    real = json.loads
    monkeypatch.setattr(S.json, 'loads', lambda *a, **k: calls.append(1) or real(*a, **k))
    got = lt.load(tmp_path / 'many.safetensors')
    assert len(calls) == 1 and list(got) == list(sd)

def test_old_lit_torch_files_still_load(tmp_path):
    "What lit_torch.save wrote before it spoke torch's format: safetensors, with the structure in lit_torch.tree."
    from safetensors.numpy import save as st_save
    tree = {'dict': [[{'value': 'state'}, {'dict': [[{'value': 0}, {'dict': [[{'value': 'step'}, {'tensor': 'state.0.step'}]]}]]}],
                     [{'value': 'param_groups'}, {'list': [{'dict': [[{'value': 'lr'}, {'value': 0.1}], [{'value': 'betas'}, {'tuple': [{'value': 0.9}, {'value': 0.99}]}]]}]}]]}
    data = st_save({'state.0.step': np.array(3., np.float32)}, {'lit_torch.tree': json.dumps(tree)})
    (tmp_path / 'old.pt').write_bytes(data)  # an old checkpoint under a .pt name: found by its first bytes
    got = lt.load(tmp_path / 'old.pt')
    with pytest.raises(RuntimeError, match='dict map_location'): lt.load(tmp_path / 'old.pt', map_location={})
    assert got['state'][0]['step'].tolist() == 3.0 and got['param_groups'] == [{'lr': 0.1, 'betas': (0.9, 0.99)}]
    flat = st_save({'b': np.ones(2, np.float32), 'a': np.zeros(1, np.float32)}, {'format': 'pt'})
    (tmp_path / 'flat.bin').write_bytes(flat)
    assert sorted(lt.load(tmp_path / 'flat.bin')) == ['a', 'b']
