"lit_torch.safetensors against the real safetensors.torch + torch: files move both ways with equal values, dtypes and key order; save/load never switch format on a suffix."
import io, zipfile
from collections import OrderedDict
import numpy as np
import pytest
import torch
import safetensors
import safetensors.torch as st
import lit_torch as lt
import lit_torch.safetensors as lst

DTYPES = ['float32', 'float64', 'float16', 'int64', 'bool', 'int32', 'int8', 'uint8']
HAS_BF16 = hasattr(lt, 'bfloat16')

def rand(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    if dtype == 'bool': return np.asarray(rng.random(shape) > 0.5)
    if dtype[0] in 'iu': return np.asarray(rng.integers(0 if dtype[0] == 'u' else -100, 100, shape)).astype(dtype)
    return np.asarray(rng.standard_normal(shape)).astype(dtype)

def torch_dict():
    "torch tensors of every dtype, 0-d and empty ones, under names whose sorted order is not their order."
    out = OrderedDict()
    for i, d in enumerate(DTYPES):
        out[f'z{i}.{d}'] = torch.from_numpy(rand(d, (3, 2), i))
        out[f'{d}.scalar'] = torch.from_numpy(rand(d, (), i + 50))
        out[f'a{i}.{d}.empty'] = torch.from_numpy(rand(d, (0, 4), i))
    out['bf16'] = torch.from_numpy(rand('float32', (2, 3), 99)).bfloat16()
    out['bf16.scalar'] = torch.tensor(1.5, dtype=torch.bfloat16)
    return out

def lit_of(t):
    if t.dtype == torch.bfloat16: return lt.tensor(t.float().numpy()).to(lt.bfloat16)
    return lt.from_numpy(t.numpy().copy())

def same(l, t):
    assert repr(l.dtype) == repr(t.dtype), (l.dtype, t.dtype)
    assert tuple(l.shape) == tuple(t.shape)
    lv = l.float().numpy() if repr(l.dtype) == 'torch.bfloat16' else l.numpy()
    tv = t.float().numpy() if t.dtype == torch.bfloat16 else t.numpy()
    np.testing.assert_array_equal(lv, tv)

def no_bf16(d): return OrderedDict((k, v) for k, v in d.items() if HAS_BF16 or v.dtype != torch.bfloat16)

def test_lit_writes_torch_reads(tmp_path):
    tt = no_bf16(torch_dict())
    ld = OrderedDict((k, lit_of(v)) for k, v in tt.items())
    lst.save_file(ld, tmp_path / 'l.safetensors', metadata={'epoch': '3', 'note': 'x'})
    got = st.load_file(str(tmp_path / 'l.safetensors'))
    assert sorted(got) == sorted(tt)
    for k in tt: same(ld[k], got[k])
    with safetensors.safe_open(str(tmp_path / 'l.safetensors'), 'pt') as f: assert {'epoch': '3', 'note': 'x'}.items() <= f.metadata().items()
    for k, v in st.load(lst.save(ld)).items(): same(ld[k], v)
    # lit_torch reads its own file back in the user's order, with the user's metadata only
    back = lst.load_file(tmp_path / 'l.safetensors')
    assert list(back) == list(tt)
    with lst.safe_open(tmp_path / 'l.safetensors', framework='pt') as f:
        assert f.metadata() == {'epoch': '3', 'note': 'x'} and f.keys() == list(tt)
    assert list(lst.load(lst.save(ld))) == list(tt)

def test_torch_writes_lit_reads(tmp_path):
    tt = torch_dict()
    st.save_file(tt, str(tmp_path / 't.safetensors'), metadata={'k': 'v'})
    data = (tmp_path / 't.safetensors').read_bytes()
    if not HAS_BF16:
        with pytest.raises(TypeError, match='bfloat16'): lst.load_file(tmp_path / 't.safetensors')
        tt = no_bf16(tt)
        st.save_file(tt, str(tmp_path / 't.safetensors'), metadata={'k': 'v'})
        data = (tmp_path / 't.safetensors').read_bytes()
    for got in (lst.load_file(tmp_path / 't.safetensors'), lst.load(data), lt.load(tmp_path / 't.safetensors')):
        assert sorted(got) == sorted(tt)
        for k in tt: same(got[k], tt[k])
    # without lit_torch's order key, names come back as safetensors.torch gives them
    assert list(lst.load_file(tmp_path / 't.safetensors')) == list(st.load_file(str(tmp_path / 't.safetensors')))
    assert list(lst.load(data)) == list(st.load_file(str(tmp_path / 't.safetensors')))  # file order (st.load's own order is a hash map's)
    with lst.safe_open(tmp_path / 't.safetensors', framework='pt') as f, safetensors.safe_open(str(tmp_path / 't.safetensors'), 'pt') as g:
        assert f.metadata() == g.metadata() == {'k': 'v'} and f.keys() == g.keys()
        same(f.get_slice('z0.float32')[1:, :1], g.get_slice('z0.float32')[1:, :1])
        assert f.get_slice('z0.float32').get_shape() == [3, 2] and f.get_slice('z0.float32').get_dtype() == 'F32'

@pytest.mark.skipif(not HAS_BF16, reason='lit_torch.bfloat16 (and ml_dtypes) come with the torch namespace; without them BF16 is refused, tested above')
def test_bfloat16_both_ways(tmp_path):
    t = torch.from_numpy(rand('float32', (4, 3), 7)).bfloat16()
    got = lst.load(st.save({'w': t}))['w']
    same(got, t)
    same(got, st.load(lst.save({'w': got}))['w'])

def test_key_order_survives_and_metadata_round_trips(tmp_path):
    keys = ['z.weight', 'a.bias', 'm', '10', '9', 'layer10', 'layer2']
    sd = OrderedDict((k, lt.randn(2)) for k in keys)
    lst.save_file(sd, tmp_path / 'o.safetensors', metadata={'format': 'pt'})
    assert list(lst.load_file(tmp_path / 'o.safetensors')) == keys
    assert list(lt.load(tmp_path / 'o.safetensors')) == keys
    assert sorted(st.load_file(str(tmp_path / 'o.safetensors'))) == sorted(keys)
    with lst.safe_open(tmp_path / 'o.safetensors', 'pt') as f: assert f.metadata() == {'format': 'pt'}
    sorted_sd = OrderedDict((k, sd[k]) for k in sorted(keys))  # already sorted: nothing extra in the header
    with safetensors.safe_open(None or _write(tmp_path / 's.safetensors', sorted_sd), 'pt') as f: assert f.metadata() is None
    with pytest.raises(ValueError, match='reserved'): lst.save(sd, metadata={'lit_torch.order': '[]'})

def _write(path, sd):
    lst.save_file(sd, path); return str(path)

def test_refusals_match_safetensors_torch():
    x, lx = torch.ones(4), lt.ones(4)
    for tb, lb in [({'a': x, 'b': x[:2]}, {'a': lx, 'b': lx[:2]}), ({'a': x, 'b': x}, {'a': lx, 'b': lx}),
                   ({'a': 1}, {'a': 1}), ([x], [lx]), ({1: x}, {1: lx})]:
        with pytest.raises(Exception) as te: st.save(tb)
        with pytest.raises(type(te.value)) as le: lst.save(lb)
        assert str(le.value).split(':')[0] == str(te.value).split(':')[0] or 'share memory' in str(te.value) and 'share memory' in str(le.value)
    # views that do not overlap are fine in both
    assert sorted(st.load(st.save({'a': x[:2], 'b': x[2:]}))) == sorted(lst.load(lst.save({'a': lx[:2], 'b': lx[2:]})))

def test_metadata_key_is_refused():
    "safetensors.torch writes a tensor named __metadata__ into a file nothing can read; lit_torch refuses it up front."
    data = st.save({'__metadata__': torch.ones(2)})
    with pytest.raises(safetensors.SafetensorError): st.load(data)
    with pytest.raises(ValueError, match='__metadata__'): lst.save({'__metadata__': lt.ones(2)})

def test_non_contiguous_and_device_tensors_are_saved_as_their_values(tmp_path):
    w = lt.randn(3, 4)
    t = w.t()
    assert not t.is_contiguous()
    got = st.load(lst.save({'t': t, 'w2': w[:, ::2].clone()}))
    np.testing.assert_array_equal(got['t'].numpy(), t.numpy())
    v = lt.randn(3).to('cpu:1')
    assert lst.load(lst.save({'v': v}))['v'].tolist() == v.tolist()
    assert lst.load_file(_write(tmp_path / 'd.safetensors', {'v': v}), device='cpu:1')['v'].device == lt.device('cpu:1')

def test_save_never_switches_on_the_suffix(tmp_path):
    "torch.save writes its zip to any name, '.safetensors' too; so does lit_torch.save, and each loads the other's."
    sd = OrderedDict([('w', lt.randn(2, 3)), ('b', lt.arange(3))])
    lt.save(sd, tmp_path / 'l.safetensors')
    torch.save({k: torch.from_numpy(v.numpy()) for k, v in sd.items()}, tmp_path / 't.safetensors')
    for name in ('l.safetensors', 't.safetensors'): assert zipfile.is_zipfile(tmp_path / name)
    for name in ('l.safetensors', 't.safetensors'):  # and torch.load of such a path asks safetensors, which cannot read a zip
        with pytest.raises(Exception): torch.load(tmp_path / name)
        with pytest.raises(RuntimeError, match='not a valid safetensors file'): lt.load(tmp_path / name)
    (tmp_path / 'l.pt').write_bytes((tmp_path / 'l.safetensors').read_bytes())
    assert list(torch.load(tmp_path / 'l.pt')) == ['w', 'b'] and list(lt.load(tmp_path / 'l.pt')) == ['w', 'b']

def test_load_of_a_safetensors_path_is_torchs(tmp_path):
    "torch.load sends a '.safetensors' path to safetensors.torch.load_file, and refuses dict and callable map_locations."
    st.save_file({'a': torch.ones(2), 'b': torch.zeros(1)}, str(tmp_path / 'x.safetensors'))
    t, l = torch.load(tmp_path / 'x.safetensors'), lt.load(tmp_path / 'x.safetensors')
    assert list(t) == list(l)
    for k in t: same(l[k], t[k])
    for ml in ({'cpu': 'cpu'}, lambda s, loc: s):
        with pytest.raises(RuntimeError) as te: torch.load(tmp_path / 'x.safetensors', map_location=ml)
        with pytest.raises(RuntimeError) as le: lt.load(tmp_path / 'x.safetensors', map_location=ml)
        assert str(te.value) == str(le.value)

def test_bad_framework_and_missing_file_are_the_packages_errors(tmp_path):
    st.save_file({'a': torch.ones(2)}, str(tmp_path / 'x.safetensors'))
    with pytest.raises(safetensors.SafetensorError, match='framework xx is invalid'): lst.safe_open(tmp_path / 'x.safetensors', 'xx')
    with pytest.raises(FileNotFoundError): lst.load_file(tmp_path / 'nope.safetensors')
    with lst.safe_open(tmp_path / 'x.safetensors', 'np') as f: assert isinstance(f.get_tensor('a'), np.ndarray)
