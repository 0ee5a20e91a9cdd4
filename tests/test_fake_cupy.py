"""The strict CuPy emulation (tests/fake_cupy) behaves as CuPy does where lit_torch's GPU path can break: these tests
are what make its verdicts trustworthy. They run in every session (the `fake_cupy` fixture installs it for one test)."""
import numpy as np
import pytest

IMPLICIT = 'Implicit conversion to a NumPy array is not allowed. Please use `.get()` to construct a NumPy array explicitly.'

def test_its_own_array_type_refuses_implicit_conversion(fake_cupy):
    cp = fake_cupy
    a = cp.asarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert not isinstance(a, np.ndarray) and type(a).__module__ == 'cupy' and cp.get_array_module(a) is cp
    assert cp.get_array_module(np.ones(2)) is np
    for convert in (np.asarray, np.array, lambda x: np.float32(x), lambda x: np.stack([x, np.ones((2, 3))])):
        with pytest.raises(TypeError): convert(a)
    with pytest.raises(TypeError, match='Implicit conversion'): np.asarray(a)
    assert str(pytest.raises(TypeError, a.__array__).value) == IMPLICIT
    np.testing.assert_array_equal(a.get(), np.arange(6).reshape(2, 3))
    np.testing.assert_array_equal(cp.asnumpy(a), a.get())
    assert isinstance(a.get(), np.ndarray) and cp.asnumpy(np.ones(2)).shape == (2,)

def test_mixing_with_numpy_arrays_raises(fake_cupy):
    cp = fake_cupy
    a, h = cp.ones((2, 3)), np.ones((2, 3))
    for op in (lambda: a + h, lambda: h + a, lambda: a * h, lambda: cp.add(a, h), lambda: cp.matmul(a, h.T),
               lambda: cp.concatenate([a, h]), lambda: cp.where(a > 0, a, h), lambda: np.add(h, a)):
        with pytest.raises(TypeError, match='Unsupported type'): op()
    with pytest.raises(TypeError): cp.ascontiguousarray(h)
    with pytest.raises(TypeError, match="Unsupported type <class 'list'>"): cp.exp([1.0, 2.0])
    with pytest.raises(ValueError, match='non-scalar numpy.ndarray'): a[...] = h   # CuPy refuses to fill from the host
    a[[0, 1]] = h            # advanced indexing copies the host values over, as CuPy does
    a[np.array([0])] = 5.0   # a host index array is copied to the device
    assert (a + np.float32(2)).dtype == np.float64 and (a * 2).get().sum() > 0   # NumPy and Python scalars are fine
    assert type(np.exp(a)) is cp.ndarray and type(np.sum(a)) is cp.ndarray      # NumPy functions dispatch to CuPy

def test_device_scalars_stay_on_the_device(fake_cupy):
    cp = fake_cupy
    a = cp.arange(6).reshape(2, 3)
    for s in (a.sum(), a[1, 2], a.max(), cp.mean(a.astype(cp.float32)), a[0][0]):
        assert type(s) is cp.ndarray and s.shape == ()
    with pytest.raises(TypeError): range(a[0, 1])       # no __index__, as in CuPy
    assert int(a[1, 2]) == 5 and a[1, 2].item() == 5 and bool(a[0, 1]) and float(a.sum()) == 15.0
    with pytest.raises(ValueError, match='ambiguous'): bool(a)

def test_devices_contexts_and_placement(fake_cupy):
    cp = fake_cupy
    rt = cp.cuda.runtime
    assert rt.getDeviceCount() == 2 and rt.getDevice() == 0
    x = cp.ones(3)
    with cp.cuda.Device(1) as d:
        assert d.id == 1 and rt.getDevice() == 1 and cp.cuda.Device().id == 1
        y = cp.zeros(3)
        assert y.device.id == 1 and y.device == cp.cuda.Device(1) and y.data.device_id == 1
        with pytest.raises(ValueError, match=r'resides \(0\) is different from the current device \(1\)'): x + 1
        z = x.copy()                       # a copy lands on the current device, from any device
        assert z.device.id == 1
        assert cp.asarray(x).device.id == 1  # so does asarray of another device's array
        assert x[1:].device.id == 0 and x.reshape(3, 1).T.device.id == 0   # views need no context, stay on their base's device
    assert rt.getDevice() == 0
    with pytest.raises(ValueError): x + y
    assert cp.zeros_like(y).device.id == 0   # *_like allocates on the current device, not the model's
    with pytest.raises(rt.CUDARuntimeError, match='invalid device ordinal'):
        with cp.cuda.Device(2): pass
    assert rt.getDevice() == 0
    rt.setDevice(1); assert cp.empty(1).device.id == 1; rt.setDevice(0)

def test_current_device_is_per_thread(fake_cupy):
    import threading
    cp, seen = fake_cupy, []
    with cp.cuda.Device(1):
        t = threading.Thread(target=lambda: seen.append(cp.cuda.runtime.getDevice()))
        t.start(); t.join()
    assert seen == [0]     # as in CUDA: a new host thread starts on device 0

def test_syncs_are_counted_where_they_happen(fake_cupy):
    cp = fake_cupy
    from cupy import _emulation
    a = cp.arange(4.)
    with _emulation.count_syncs() as log:
        b = (a * 2).sum() + a.mean()   # kernels only
    assert log.syncs == 0
    with _emulation.count_syncs() as log:
        float(b); int(a[1]); bool(a[1]); b.item(); a.tolist(); a.get(); cp.asnumpy(a); a[a > 1]; cp.nonzero(a)
        cp.cuda.runtime.deviceSynchronize()
    assert log.syncs == 10, log
    assert set(log.where()) and all('test_fake_cupy.py' in w for w in log.where())
    assert log.count('float', 'int', 'bool') == 3 and log.count('implicit') == 2
    import cupyx
    with cupyx.allow_synchronize(False):
        a + 1
        with pytest.raises(cupyx.DeviceSynchronized): a.sum().item()

def test_random_state_is_bound_to_its_device(fake_cupy):
    cp = fake_cupy
    rs = cp.random.RandomState(0)
    x = rs.standard_normal((3,), dtype=np.float32)
    assert x.dtype == np.float32 and x.device.id == 0 and rs.random_sample().shape == ()
    np.testing.assert_array_equal(cp.random.RandomState(0).standard_normal((3,), dtype=np.float32).get(), x.get())
    with pytest.raises(AttributeError, match="no attribute 'random'"): rs.random((2,))   # NumPy's name; CuPy has none
    with pytest.raises(TypeError, match='float32 and float64'): rs.standard_normal(3, dtype=np.float16)
    with cp.cuda.Device(1):
        with pytest.raises(RuntimeError, match='belongs to device 0'): rs.standard_normal(2)
    assert sorted(rs.permutation(5).tolist()) == list(range(5)) and rs.randint(0, 3, (4,)).dtype == np.int64

def test_random_state_has_cupys_distributions(fake_cupy):
    "CuPy's documented distributions, with its parameter names, defaults and dtypes: floats are float32/64, counts int64."
    cp = fake_cupy
    rs = cp.random.RandomState(0)
    g = rs.geometric(0.3, size=(50,))
    assert g.dtype == np.int64 and g.device.id == 0 and int(g.min()) >= 1
    assert rs.poisson(2.0, (3,)).dtype == np.int64 and rs.binomial(5, 0.5, 4).dtype == np.int64
    x = rs.lognormal(1.0, 2.0, size=(3,), dtype=np.float32)
    assert x.dtype == np.float32 and bool((x > 0).all())
    assert rs.standard_cauchy((2, 2)).shape == (2, 2) and rs.standard_cauchy().shape == ()
    assert rs.gamma(2.0, 1.0, (3,)).dtype == np.float64 and rs.gamma(shape=2.0, size=3, dtype=np.float32).dtype == np.float32
    assert rs.beta(1, 2, 5).shape == (5,) and rs.exponential(0.5, size=2).shape == (2,) and rs.zipf(2.0, 3).dtype == np.int64
    lam = cp.asarray(np.array([1.0, 5.0]))
    assert rs.poisson(lam, lam.shape).shape == (2,)                          # device parameters broadcast
    with pytest.raises(TypeError, match='Unsupported type'): rs.poisson(np.array([1.0, 2.0]), (2,))   # host ones do not
    with pytest.raises(TypeError, match='float32 and float64'): rs.gamma(2.0, dtype=np.float16)
    with pytest.raises(TypeError, match="missing required argument 'p'"): rs.geometric()
    with pytest.raises(TypeError, match='unexpected keyword'): rs.lognormal(std=2.0)   # CuPy calls it sigma
    assert cp.random.geometric(0.5, 3).shape == (3,) and cp.random.standard_cauchy(2).shape == (2,)
    with cp.cuda.Device(1):
        with pytest.raises(RuntimeError, match='belongs to device 0'): rs.geometric(0.5, 2)

def test_what_is_not_emulated_says_so(fake_cupy):
    cp = fake_cupy
    with pytest.raises(AttributeError, match='not emulated'): cp.RawKernel
    with pytest.raises(AttributeError, match='has none either'): cp.no_such_function
    with pytest.raises(AttributeError, match='not emulated'): cp.random.RandomState().multivariate_normal([0.], [[1.]])
    with pytest.raises(TypeError, match='casting is not supported'): cp.ones(2).astype(np.int32, casting='unsafe')

def test_empty_is_garbage(fake_cupy):
    cp = fake_cupy
    assert np.isnan(cp.empty(3).get()).all() and (cp.empty_like(cp.ones(2, np.int64)).get() == np.iinfo(np.int64).max).all()

def test_pinned_memory_and_dlpack(fake_cupy):
    cp = fake_cupy
    import cupyx
    h = cupyx.empty_pinned((2, 3), np.float32)
    assert isinstance(h, np.ndarray) and type(h.base).__name__ == 'PinnedMemoryPointer'
    a = cp.arange(3)
    assert a.__dlpack_device__() == (2, 0)
    b = cp.from_dlpack(a)
    b[0] = 7
    assert a[0].item() == 7

def test_nccl_checks_pointers_and_devices(fake_cupy):
    cp = fake_cupy
    from cupy.cuda import nccl
    comm = nccl.NcclCommunicator(1, nccl.get_unique_id(), 0)
    s, r = cp.arange(4, dtype=cp.float32), cp.zeros(4, cp.float32)
    comm.allReduce(s.data.ptr, r.data.ptr, 4, nccl.NCCL_FLOAT32, nccl.NCCL_SUM, cp.cuda.get_current_stream().ptr)
    assert r.tolist() == [0, 1, 2, 3]
    with cp.cuda.Device(1): other = cp.zeros(4, cp.float32)
    with pytest.raises(nccl.NcclError, match='device 1'):
        comm.allReduce(other.data.ptr, other.data.ptr, 4, nccl.NCCL_FLOAT32, nccl.NCCL_SUM, 0)
    host = np.zeros(4, np.float32)
    with pytest.raises(nccl.NcclError, match='host'):
        comm.broadcast(host.ctypes.data, host.ctypes.data, 4, nccl.NCCL_FLOAT32, 0, 0)

def test_lit_torch_sees_two_gpus(fake_cupy):
    import lit_torch as lt
    assert lt.cuda.is_available() and lt.cuda.device_count() == 2
    t = lt.ones(2, 3, device='cuda:1')
    assert t.device == lt.device('cuda:1') and type(t._data) is fake_cupy.ndarray and t._data.device.id == 1
    np.testing.assert_array_equal(t.cpu().numpy(), np.ones((2, 3)))
    with pytest.raises(RuntimeError, match='cuda:2'): lt.zeros(1, device='cuda:2')

def test_out_of_bounds_index_arrays_wrap_around(fake_cupy):
    "CuPy's documented difference from NumPy: integer index arrays wrap around instead of raising (an int still raises)."
    cp = fake_cupy
    a = cp.arange(3)
    assert a[[1, 3]].tolist() == [1, 0] and a.take(cp.asarray([4])).tolist() == [1]
    x = cp.zeros(3)
    x[[1, 3]] = 10
    assert x.tolist() == [10, 10, 0]
    with pytest.raises(IndexError): a[5]
