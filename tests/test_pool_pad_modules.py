"Each padding and pooling layer, built on torch's shared bases, has torch's repr, state_dict, signature and `__constants__`."
import inspect
import pytest
import torch
import torch.nn.modules.padding as tpad, torch.nn.modules.pooling as tpool
import lit_torch.nn.modules.padding as lpad, lit_torch.nn.modules.pooling as lpool

# Constructor arguments per family, a few settings each (non-default values, so a swapped field shows).
ARGS = {'ConstantPad': [((1, 2.5), {}), ((3, -1.0), {})], 'ZeroPad': [((2,), {})],
        'Pad': [((2,), {}), ((3,), {})],
        'FractionalMaxPool': [((2,), dict(output_ratio=0.5)), ((3,), dict(output_size=4, return_indices=True))],
        'AdaptiveMaxPool': [((4,), {}), ((3,), dict(return_indices=True))], 'AdaptiveAvgPool': [((4,), {}), ((None,), {})],
        'MaxUnpool': [((2,), {}), ((3,), dict(stride=2, padding=1))], 'LPPool': [((2, 3), {}), ((1.5, 2), dict(stride=1, ceil_mode=True))],
        'AvgPool': [((3,), {}), ((3,), dict(stride=2, padding=1, ceil_mode=True, count_include_pad=False))],
        'MaxPool': [((3,), {}), ((3,), dict(stride=2, padding=1, dilation=2, return_indices=True, ceil_mode=True))]}

def _family(name): return next(k for k in ARGS if k in name)

CASES = [(tm, lm, n, i) for tm, lm in ((tpad, lpad), (tpool, lpool)) for n in tm.__all__ for i in range(len(ARGS[_family(n)]))]

@pytest.mark.parametrize('tm,lm,name,i', CASES, ids=[f'{n}-{i}' for _, _, n, i in CASES])
def test_layer_matches_torch(tm, lm, name, i):
    tc, lc = getattr(tm, name), getattr(lm, name)
    args, kw = ARGS[_family(name)][i]
    if name.endswith('3d') and 'Pad' in name: args = ((1, 2, 0, 3, 1, 1), *args[1:])  # a tuple, one amount per side
    t, l = tc(*args, **kw), lc(*args, **kw)
    assert repr(l) == repr(t)
    assert list(l.state_dict()) == list(t.state_dict())
    strip = lambda c: [(p.name, p.default, p.kind) for p in inspect.signature(c.__init__).parameters.values()]
    assert strip(lc) == strip(tc)
    assert getattr(lc, '__constants__', None) == getattr(tc, '__constants__', None)

def test_torchs_shared_bases():
    for base in ('_ConstantPadNd', '_ReflectionPadNd', '_ReplicationPadNd', '_CircularPadNd'):
        for n in tpad.__all__:
            if issubclass(getattr(tpad, n), getattr(tpad, base)): assert issubclass(getattr(lpad, n), getattr(lpad, base)), (n, base)
    for base in ('_MaxPoolNd', '_AvgPoolNd', '_AdaptiveAvgPoolNd', '_AdaptiveMaxPoolNd', '_LPPoolNd', '_MaxUnpoolNd'):
        for n in tpool.__all__:
            if issubclass(getattr(tpool, n), getattr(tpool, base)): assert issubclass(getattr(lpool, n), getattr(lpool, base)), (n, base)
