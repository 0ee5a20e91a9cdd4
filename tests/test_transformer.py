"""nn.Transformer and its parts against PyTorch: torch's state_dict is loaded into lit_torch's module (keys and
order must match), then outputs, every parameter gradient and the input gradients are compared on seeded random
inputs, for every layout, norm placement, activation, bias setting, mask kind and causal hint; plus PyTorch's
fused inference path, unbatched inputs, custom stacks, and PyTorch's exception types."""
import warnings
import numpy as np
import pytest
import torch
import lit_torch as lt
from op_helpers import check_same_error

# both libraries warn alike on these (test_warnings_match_torch checks that); here they are noise
pytestmark = pytest.mark.filterwarnings("ignore:Support for mismatched", "ignore:enable_nested_tensor is True",
                                        "ignore:The PyTorch API of nested tensors", "ignore:invalid value encountered in cast")

@pytest.fixture(autouse=True, scope='module')
def _one_torch_thread():
    "Tiny ops: torch's thread pool only costs time here (and spins on the shared cores); restored afterwards."
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)

D, H, FF = 8, 2, 16
ATOL, RTOL, GATOL, GRTOL = 2e-5, 1e-4, 1e-4, 1e-4
_dtype = {np.dtype('float32'): (torch.float32, lt.float32), np.dtype('float64'): (torch.float64, lt.float64)}

def _to(lib, a, requires_grad=False, device=None):
    if a is None or isinstance(a, (bool, int, float)): return a
    if lib is torch: return torch.tensor(a, requires_grad=requires_grad)
    return lt.tensor(a, requires_grad=requires_grad, device=device)

def pair(make, seed=0):
    "torch's module `make(torch)` and lit_torch's `make(lt)` with torch's weights loaded; the state_dict keys must agree."
    torch.manual_seed(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tm, lm = make(torch), make(lt)
    sd = tm.state_dict()
    assert list(lm.state_dict()) == list(sd)
    missing = lm.load_state_dict({k: lt.tensor(v.numpy()) for k, v in sd.items()})
    assert not missing.missing_keys and not missing.unexpected_keys
    return tm, lm

def rand(*shape, seed=0, dtype=np.float32):
    a = np.random.default_rng(seed).standard_normal(shape)
    return np.where(np.abs(a) < 1e-3, 1e-3, a).astype(dtype)

def compare(tm, lm, inputs, kwargs=None, grad=True, atol=ATOL, rtol=RTOL, select=None, device=None):
    "Run both modules on `inputs` (arrays) with `kwargs` (arrays/scalars); compare outputs, then input and parameter gradients."
    kwargs = kwargs or {}
    t_in = [_to(torch, a, grad) for a in inputs]
    l_in = [_to(lt, a, grad, device) for a in inputs]
    to = tm(*t_in, **{k: _to(torch, v) for k, v in kwargs.items()})
    lo = lm(*l_in, **{k: _to(lt, v, device=device) for k, v in kwargs.items()})
    assert tuple(lo.shape) == tuple(to.shape) and repr(lo.dtype) == repr(to.dtype)
    tv, lv = to.detach().numpy(), lo.detach().cpu().numpy()
    if select is not None: tv, lv = tv[select], lv[select]
    assert np.isfinite(tv).all()
    np.testing.assert_allclose(lv, tv, atol=atol, rtol=rtol)
    if not grad: return to, lo
    w = rand(*to.shape, seed=7, dtype=tv.dtype)
    (to * torch.tensor(w)).sum().backward()
    (lo * lt.tensor(w, device=lo.device)).sum().backward()
    for t, l in zip(t_in, l_in):
        np.testing.assert_allclose(l.grad.cpu().numpy(), t.grad.numpy(), atol=GATOL, rtol=GRTOL)
    lp = dict(lm.named_parameters())
    for name, p in tm.named_parameters():
        if p.grad is None: assert lp[name].grad is None or not np.any(lp[name].grad.cpu().numpy()), name; continue
        assert lp[name].grad is not None, name
        assert lp[name].grad.device == lp[name].device, name
        np.testing.assert_allclose(lp[name].grad.cpu().numpy(), p.grad.numpy(), atol=GATOL, rtol=GRTOL, err_msg=name)
    return to, lo

# masks as numpy arrays; padding on the right, never a fully masked row
def causal(n, kind='float'):
    m = np.triu(np.ones((n, n), bool), 1)
    return m if kind == 'bool' else np.where(m, -np.inf, 0).astype(np.float32)

def band(l, s, kind):
    i, j = np.arange(l)[:, None], np.arange(s)[None, :]
    m = np.abs(i - j) > 1
    return m if kind == 'bool' else np.where(m, -np.inf, rand(l, s, seed=3) * 0.5).astype(np.float32)  # float: -inf plus a finite bias

def padding(n, s, kind, lens=None):
    lens = lens or [s - k % 3 for k in range(n)]
    m = np.arange(s)[None, :] >= np.array(lens)[:, None]
    return m if kind == 'bool' else np.where(m, -np.inf, 0).astype(np.float32)

def act(name, lib):
    "The activation argument `name` stands for, in `lib`: a string, a function or a module."
    if name == 'GELU()': return lib.nn.GELU()
    return {'relu': 'relu', 'gelu': 'gelu', 'F.gelu': lib.nn.functional.gelu, 'tanh': lib.tanh}[name]

def shape(n, l, batch_first): return (n, l, D) if batch_first else (l, n, D)

# ---------------------------------------------------------------- layers

@pytest.mark.parametrize('batch_first', [False, True])
@pytest.mark.parametrize('norm_first', [False, True])
@pytest.mark.parametrize('activation', ['relu', 'gelu', 'tanh', 'GELU()'])
@pytest.mark.parametrize('bias', [True, False])
def test_encoder_layer_variants(batch_first, norm_first, activation, bias):
    tm, lm = pair(lambda lib: lib.nn.TransformerEncoderLayer(D, H, FF, 0.0, act(activation, lib), 1e-5, batch_first, norm_first, bias))
    N, L = 3, 5
    compare(tm, lm, [rand(*shape(N, L, batch_first))],
            dict(src_mask=causal(L, 'bool'), src_key_padding_mask=padding(N, L, 'bool')))

@pytest.mark.parametrize('kind', ['bool', 'float'])
@pytest.mark.parametrize('which', ['none', 'src_mask', 'kpm', 'both', 'causal', 'causal+kpm', 'mask3d'])
def test_encoder_layer_masks(kind, which):
    tm, lm = pair(lambda lib: lib.nn.TransformerEncoderLayer(D, H, FF, 0.0, batch_first=True))
    N, L = 3, 6
    kw = {}
    if which in ('src_mask', 'both'): kw['src_mask'] = band(L, L, kind)
    if which in ('kpm', 'both', 'causal+kpm'): kw['src_key_padding_mask'] = padding(N, L, kind)
    if which.startswith('causal'): kw.update(src_mask=causal(L, kind), is_causal=True)
    if which == 'mask3d': kw['src_mask'] = np.broadcast_to(band(L, L, kind), (N * H, L, L)).copy()
    compare(tm, lm, [rand(N, L, D)], kw)

@pytest.mark.parametrize('batch_first', [False, True])
@pytest.mark.parametrize('norm_first', [False, True])
@pytest.mark.parametrize('activation', ['relu', 'gelu', 'F.gelu', 'tanh'])
@pytest.mark.parametrize('bias', [True, False])
def test_decoder_layer_variants(batch_first, norm_first, activation, bias):
    tm, lm = pair(lambda lib: lib.nn.TransformerDecoderLayer(D, H, FF, 0.0, act(activation, lib), 1e-5, batch_first, norm_first, bias))
    N, T, S = 3, 4, 6
    compare(tm, lm, [rand(*shape(N, T, batch_first)), rand(*shape(N, S, batch_first), seed=1)],
            dict(tgt_mask=causal(T), memory_key_padding_mask=padding(N, S, 'float')))

@pytest.mark.parametrize('kind', ['bool', 'float'])
@pytest.mark.parametrize('which', ['none', 'tgt_mask', 'memory_mask', 'tgt_kpm', 'memory_kpm', 'all', 'causal_hint', 'mask3d'])
def test_decoder_layer_masks(kind, which):
    tm, lm = pair(lambda lib: lib.nn.TransformerDecoderLayer(D, H, FF, 0.0))
    N, T, S = 3, 5, 6
    kw = {}
    if which in ('tgt_mask', 'all'): kw['tgt_mask'] = causal(T, kind)
    if which in ('memory_mask', 'all'): kw['memory_mask'] = band(T, S, kind)
    if which in ('tgt_kpm', 'all'): kw['tgt_key_padding_mask'] = padding(N, T, kind)
    if which in ('memory_kpm', 'all'): kw['memory_key_padding_mask'] = padding(N, S, kind)
    if which == 'causal_hint': kw.update(tgt_mask=causal(T, kind), tgt_is_causal=True)
    if which == 'mask3d': kw.update(tgt_mask=np.broadcast_to(causal(T, kind), (N * H, T, T)).copy(),
                                    memory_mask=np.broadcast_to(band(T, S, kind), (N * H, T, S)).copy())
    compare(tm, lm, [rand(T, N, D), rand(S, N, D, seed=1)], kw)

def test_layer_attributes():
    for lib in (torch, lt):
        for a, want in [('relu', 1), ('gelu', 2), (lib.nn.functional.relu, 1), (lib.nn.GELU(), 2), (lib.tanh, 0)]:
            assert lib.nn.TransformerEncoderLayer(D, H, activation=a).activation_relu_or_gelu == want
    l = lt.nn.TransformerEncoderLayer(D, H, activation='gelu')
    assert l.activation is lt.nn.functional.gelu and l.norm_first is False
    assert lt.nn.TransformerDecoderLayer(D, H, activation='relu').activation is lt.nn.functional.relu
    assert isinstance(l.self_attn, lt.nn.modules.activation.MultiheadAttention)
    assert (l.linear1.out_features, l.dropout.p, l.norm1.eps) == (2048, 0.1, 1e-5)

# ---------------------------------------------------------------- stacks and the model

@pytest.mark.parametrize('norm', [False, True])
@pytest.mark.parametrize('kind', ['bool', 'float'])
def test_encoder_stack(norm, kind):
    N, L = 3, 5
    tm, lm = pair(lambda lib: lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(D, H, FF, 0.0), 2,
                                                         lib.nn.LayerNorm(D) if norm else None))
    assert [k for k in lm.state_dict()][:1] == ['layers.0.self_attn.in_proj_weight']
    compare(tm, lm, [rand(L, N, D)], dict(mask=causal(L, kind), src_key_padding_mask=padding(N, L, kind)))
    compare(tm, lm, [rand(L, N, D, seed=2)], dict(mask=band(L, L, kind)))

@pytest.mark.parametrize('hint', [None, True, False])
def test_decoder_stack(hint):
    N, T, S = 2, 5, 4
    tm, lm = pair(lambda lib: lib.nn.TransformerDecoder(lib.nn.TransformerDecoderLayer(D, H, FF, 0.0, batch_first=True), 2,
                                                         lib.nn.LayerNorm(D)))
    compare(tm, lm, [rand(N, T, D), rand(N, S, D, seed=1)],
            dict(tgt_mask=causal(T), tgt_is_causal=hint, tgt_key_padding_mask=padding(N, T, 'bool'),
                 memory_key_padding_mask=padding(N, S, 'bool')))

def test_clones_are_independent():
    layer = lt.nn.TransformerEncoderLayer(D, H, FF)
    enc = lt.nn.TransformerEncoder(layer, 3, enable_nested_tensor=False)
    ps = [m.linear1.weight for m in enc.layers]
    assert len({id(p) for p in ps}) == 3 and all(p is not layer.linear1.weight for p in ps)
    np.testing.assert_array_equal(ps[0].detach().numpy(), ps[2].detach().numpy())
    assert enc.num_layers == 3 and enc.norm is None and enc.mask_check is True

def test_is_causal_detection():
    from lit_torch.nn.modules.transformer import _detect_is_causal_mask
    from torch.nn.modules.transformer import _detect_is_causal_mask as t_detect
    for m, size in [(causal(4), None), (causal(4), 4), (causal(4), 3), (causal(4).T.copy(), None), (causal(4, 'bool'), None),
                    (np.zeros((4, 4), np.float32), None), (np.broadcast_to(causal(4), (2, 4, 4)).copy(), None)]:
        for hint in (None, True, False):
            assert _detect_is_causal_mask(lt.tensor(m), hint, size) == t_detect(torch.tensor(m), hint, size)
    assert _detect_is_causal_mask(None, None) is False and _detect_is_causal_mask(None, True) is True

@pytest.mark.parametrize('batch_first', [False, True])
@pytest.mark.parametrize('norm_first', [False, True])
@pytest.mark.parametrize('kind', ['bool', 'float'])
def test_transformer_all_masks(batch_first, norm_first, kind):
    N, S, T = 3, 6, 5
    tm, lm = pair(lambda lib: lib.nn.Transformer(D, H, 2, 2, FF, 0.0, batch_first=batch_first, norm_first=norm_first))
    kw = dict(src_mask=band(S, S, kind), tgt_mask=causal(T, kind), memory_mask=band(T, S, kind),
              src_key_padding_mask=padding(N, S, kind), tgt_key_padding_mask=padding(N, T, kind),
              memory_key_padding_mask=padding(N, S, kind))
    compare(tm, lm, [rand(*shape(N, S, batch_first)), rand(*shape(N, T, batch_first), seed=1)], kw)

@pytest.mark.parametrize('activation', ['gelu', 'tanh'])
def test_transformer_options(activation):
    N, S, T = 2, 4, 3
    tm, lm = pair(lambda lib: lib.nn.Transformer(D, H, 1, 2, FF, 0.0, act(activation, lib), layer_norm_eps=1e-3, bias=False))
    assert lm.encoder.norm.eps == 1e-3 and lm.encoder.norm.bias is None
    compare(tm, lm, [rand(S, N, D), rand(T, N, D, seed=1)],
            dict(tgt_mask=causal(T), src_is_causal=False, tgt_is_causal=True, memory_is_causal=False))

def test_transformer_unbatched():
    S, T = 5, 4
    tm, lm = pair(lambda lib: lib.nn.Transformer(D, H, 1, 1, FF, 0.0))
    kw = dict(tgt_mask=causal(T), src_key_padding_mask=padding(1, S, 'bool')[0], tgt_key_padding_mask=padding(1, T, 'bool', [3])[0],
              memory_key_padding_mask=padding(1, S, 'bool')[0])
    compare(tm, lm, [rand(S, D), rand(T, D, seed=1)], kw)
    tl, ll = pair(lambda lib: lib.nn.TransformerEncoderLayer(D, H, FF, 0.0, batch_first=True))
    compare(tl, ll, [rand(S, D)], dict(src_mask=causal(S, 'bool')))

def test_transformer_custom_encoder_decoder():
    def make(lib):
        enc = lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(D, H, FF, 0.0, norm_first=True), 1, lib.nn.LayerNorm(D),
                                        enable_nested_tensor=False)
        dec = lib.nn.TransformerDecoder(lib.nn.TransformerDecoderLayer(D, H, FF, 0.0, activation='gelu'), 3)
        return lib.nn.Transformer(D, H, custom_encoder=enc, custom_decoder=dec, dropout=0.0)
    tm, lm = pair(make)
    assert len(lm.decoder.layers) == 3 and lm.decoder.norm is None
    compare(tm, lm, [rand(5, 2, D), rand(4, 2, D, seed=1)], dict(tgt_mask=causal(4)))

def test_transformer_defaults_and_init():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        l = lt.nn.Transformer(d_model=16, nhead=4, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=32)
    assert any("use_nested_tensor is False" in str(x.message) for x in w)
    assert (l.d_model, l.nhead, l.batch_first) == (16, 4, False)
    assert list(lt.nn.Transformer(num_encoder_layers=1, num_decoder_layers=1).state_dict()) == \
        list(torch.nn.Transformer(num_encoder_layers=1, num_decoder_layers=1).state_dict())
    for name, p in l.named_parameters():
        a = p.detach().numpy()
        if p.dim() > 1:  # xavier_uniform_
            fan_out, fan_in = p.shape
            bound = (6 / (fan_in + fan_out)) ** 0.5
            assert np.abs(a).max() <= bound and np.abs(a).max() > 0.8 * bound, name
    assert not np.any(l.encoder.layers[0].self_attn.in_proj_bias.detach().numpy())

def test_eval_mode_dropout_inactive():
    N, S, T = 2, 5, 4
    tm, lm = pair(lambda lib: lib.nn.Transformer(D, H, 1, 1, FF, dropout=0.3))
    tm.eval(); lm.eval()
    compare(tm, lm, [rand(S, N, D), rand(T, N, D, seed=1)], dict(tgt_mask=causal(T)))
    lm.train()
    x, y = lt.tensor(rand(S, N, D)), lt.tensor(rand(T, N, D, seed=1))
    assert not np.allclose(lm(x, y).detach().numpy(), lm(x, y).detach().numpy())

def test_generate_square_subsequent_mask():
    for sz in (1, 4):
        np.testing.assert_array_equal(lt.nn.Transformer.generate_square_subsequent_mask(sz).numpy(),
                                      torch.nn.Transformer.generate_square_subsequent_mask(sz).numpy())
    m = lt.nn.Transformer.generate_square_subsequent_mask(3, dtype=lt.float64)
    assert m.dtype == lt.float64 and lt.nn.Transformer.generate_square_subsequent_mask(3).dtype == lt.float32
    from lit_torch.nn.modules import transformer as T
    assert T._generate_square_subsequent_mask(2).tolist() == [[0.0, -np.inf], [0.0, 0.0]]

# ---------------------------------------------------------------- PyTorch's inference fast paths

@pytest.mark.parametrize('masks', ['none', 'kpm', 'src_mask', 'both'])
@pytest.mark.parametrize('activation', ['relu', 'gelu'])
def test_encoder_layer_fastpath(masks, activation):
    "eval() under no_grad(): torch runs its fused encoder layer kernel; the results must still agree."
    N, L = 3, 6
    tm, lm = pair(lambda lib: lib.nn.TransformerEncoderLayer(D, H, FF, 0.1, activation, batch_first=True))
    tm.eval(); lm.eval()
    kw = {}
    if masks in ('kpm', 'both'): kw['src_key_padding_mask'] = padding(N, L, 'bool')
    if masks == 'src_mask': kw['src_mask'] = band(L, L, 'bool')
    if masks == 'both': kw['src_mask'] = causal(L, 'bool')  # with the padding, a band would leave rows with no key (NaN there)
    with torch.no_grad(), lt.no_grad():
        compare(tm, lm, [rand(N, L, D)], kw, grad=False, atol=1e-4)

def test_fastpath_float_mask_is_additive():
    """torch's fused inference path treats any nonzero float mask value as masked; lit_torch adds it, as documented
    and as torch's own training path does: compare with that."""
    N, L = 2, 5
    tm, lm = pair(lambda lib: lib.nn.TransformerEncoderLayer(D, H, FF, 0.0, batch_first=True))
    lm.eval()
    bias = rand(L, L, seed=3) * 0.5
    x = rand(N, L, D)
    want = tm(torch.tensor(x), src_mask=torch.tensor(bias)).detach().numpy()  # training mode: the documented semantics
    with lt.no_grad():
        got = lm(lt.tensor(x), src_mask=lt.tensor(bias)).numpy()
    np.testing.assert_allclose(got, want, atol=ATOL, rtol=RTOL)
    tm.eval()
    with torch.no_grad():
        assert np.isnan(tm(torch.tensor(x), src_mask=torch.tensor(bias)).numpy()).all()  # every row "fully masked"

def test_encoder_nested_fastpath():
    "torch packs a padded batch into a nested tensor in eval/no_grad: equal at every real position."
    N, L = 3, 6
    tm, lm = pair(lambda lib: lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(D, H, FF, 0.0, batch_first=True), 2,
                                                         lib.nn.LayerNorm(D)))
    assert tm.use_nested_tensor and lm.use_nested_tensor
    tm.eval(); lm.eval()
    kpm = padding(N, L, 'bool')
    with torch.no_grad(), lt.no_grad():
        compare(tm, lm, [rand(N, L, D)], dict(src_key_padding_mask=kpm), grad=False, atol=1e-4, select=~kpm)

def test_transformer_eval_no_grad():
    N, S, T = 2, 5, 4
    tm, lm = pair(lambda lib: lib.nn.Transformer(D, H, 2, 2, FF, batch_first=True))
    tm.eval(); lm.eval()
    kw = dict(tgt_mask=causal(T), src_key_padding_mask=padding(N, S, 'bool'), memory_key_padding_mask=padding(N, S, 'bool'))
    with torch.no_grad(), lt.no_grad():
        compare(tm, lm, [rand(N, S, D), rand(N, T, D, seed=1)], kw, grad=False, atol=1e-4)

# ---------------------------------------------------------------- errors and warnings

def _model(lib, **kw): 
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return lib.nn.Transformer(D, H, 1, 1, FF, 0.0, **kw)

@pytest.mark.parametrize('case', ['d_model_src', 'd_model_tgt', 'batch', 'batch_first_batch'])
def test_transformer_errors(case):
    def run(lib):
        m = _model(lib, batch_first=case == 'batch_first_batch')
        src, tgt = lib.tensor(rand(5, 2, D)), lib.tensor(rand(4, 2, D))
        if case == 'd_model_src': src = lib.tensor(rand(5, 2, D + 1))
        if case == 'd_model_tgt': tgt = lib.tensor(rand(4, 2, D - 2))
        if case == 'batch': tgt = lib.tensor(rand(4, 3, D))
        if case == 'batch_first_batch': src, tgt = lib.tensor(rand(2, 5, D)), lib.tensor(rand(3, 4, D))
        m(src, tgt)
    e = check_same_error(run)
    assert ('batch number' if 'batch' in case else 'd_model') in str(e)

@pytest.mark.parametrize('case', ['src_mask_shape', 'tgt_mask_shape', 'memory_mask_shape', 'kpm_int', 'src_mask_int',
                                  'causal_hint_without_mask', 'kpm_shape'])
def test_mask_errors(case):
    S, T, N = 5, 4, 2
    kw = {'src_mask_shape': dict(src_mask=causal(S + 1)), 'tgt_mask_shape': dict(tgt_mask=causal(T - 1)),
          'memory_mask_shape': dict(memory_mask=np.zeros((S, T), np.float32)),
          'kpm_int': dict(src_key_padding_mask=padding(N, S, 'bool').astype(np.int64)),
          'src_mask_int': dict(src_mask=causal(S, 'bool').astype(np.int32)),
          'causal_hint_without_mask': dict(tgt_is_causal=True),
          'kpm_shape': dict(src_key_padding_mask=padding(N + 1, S, 'bool'))}[case]
    def run(lib):
        m = _model(lib)
        m(lib.tensor(rand(S, N, D)), lib.tensor(rand(T, N, D)), **{k: _to(lib, v) for k, v in kw.items()})
    check_same_error(run)

def test_int_mask_errors_in_layers():
    S, T, N = 5, 4, 2
    for kw in [dict(tgt_mask=causal(T, 'bool').astype(np.int64)), dict(memory_mask=np.zeros((T, S), np.int32)),
               dict(tgt_key_padding_mask=padding(N, T, 'bool').astype(np.int64))]:
        e = check_same_error(lambda lib: lib.nn.TransformerDecoderLayer(D, H, FF, 0.0)(
            lib.tensor(rand(T, N, D)), lib.tensor(rand(S, N, D)), **{k: lib.tensor(v) for k, v in kw.items()}))
        assert 'only bool and floating types' in str(e)

def test_int_tgt_mask_through_the_decoder_stack():
    # torch's TransformerDecoder first builds a causal mask of tgt_mask's dtype to compare with: an int dtype overflows
    check_same_error(lambda lib: _model(lib)(lib.tensor(rand(5, 2, D)), lib.tensor(rand(4, 2, D)),
                                             tgt_mask=lib.tensor(causal(4, 'bool').astype(np.int64))))

def test_layer_errors():
    e = check_same_error(lambda lib: lib.nn.TransformerEncoderLayer(D, H, activation='tanh'))
    assert 'relu/gelu, not tanh' in str(e)
    check_same_error(lambda lib: lib.nn.TransformerDecoderLayer(D, H, activation='swish'))
    check_same_error(lambda lib: lib.nn.Transformer(D, H, activation='elu'))
    e = check_same_error(lambda lib: lib.nn.TransformerEncoderLayer(D, H)(lib.tensor(rand(5, 2, D)),
                                                                         src_key_padding_mask=lib.tensor(np.zeros((2, 5), np.int64))))
    assert 'only bool and floating types of src_key_padding_mask' in str(e)

def test_warnings_match_torch():
    def record(fn):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            fn()
        return [str(x.message) for x in w if issubclass(x.category, UserWarning)]
    for nhead, kw in [(2, dict()), (2, dict(batch_first=True)), (2, dict(batch_first=True, norm_first=True)),
                      (2, dict(batch_first=True, bias=False)), (2, dict(batch_first=True, activation='tanh')),
                      (3, dict(batch_first=True)), (2, dict(batch_first=True, enable_nested_tensor=False))]:
        nested = {'enable_nested_tensor': kw.pop('enable_nested_tensor')} if 'enable_nested_tensor' in kw else {}
        make = lambda lib: lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(
            12, nhead, **{k: lib.tanh if v == 'tanh' else v for k, v in kw.items()}), 1, **nested)
        want, got = record(lambda: make(torch)), record(lambda: make(lt))
        assert got == want, (nhead, kw)
    # a bool mask with a float key padding mask: deprecated, warned about, still works
    l = lt.nn.TransformerEncoderLayer(D, H, FF, 0.0)
    got = record(lambda: l(lt.tensor(rand(5, 2, D)), src_mask=lt.tensor(causal(5, 'bool')),
                           src_key_padding_mask=lt.tensor(padding(2, 5, 'float'))))
    assert any('mismatched src_key_padding_mask and src_mask' in g for g in got)

# ---------------------------------------------------------------- devices

@pytest.mark.parametrize('device', ['cpu:1', pytest.param('cuda:0', marks=pytest.mark.skipif(
    not lt.cuda.is_available(), reason='no GPU: CuPy or a device is missing')), pytest.param('cuda:1', marks=[pytest.mark.skipif(
    lt.cuda.device_count() < 2, reason='needs 2 GPUs: cuda:1 is not the current device, so it catches a missing device context')])])
def test_transformer_on_device(device):
    N, S, T = 2, 6, 5
    tm, lm = pair(lambda lib: lib.nn.Transformer(D, H, 2, 2, FF, 0.0, batch_first=True, norm_first=True))
    lm.to(device)
    assert all(p.device == lt.device(device) for p in lm.parameters())
    assert lt.nn.Transformer.generate_square_subsequent_mask(3, device=device).device == lt.device(device)
    kw = dict(tgt_mask=causal(T), src_key_padding_mask=padding(N, S, 'bool'), memory_key_padding_mask=padding(N, S, 'bool'),
              tgt_key_padding_mask=padding(N, T, 'float'), src_mask=band(S, S, 'float'))
    compare(tm, lm, [rand(N, S, D), rand(N, T, D, seed=1)], kw, device=device)
    kw['src_mask'] = band(S, S, 'bool')  # torch's fused inference path reads float masks as bool (see below)
    with torch.no_grad(), lt.no_grad():
        tm.eval(); lm.eval()
        compare(tm, lm, [rand(N, S, D), rand(N, T, D, seed=1)], kw, grad=False, atol=1e-4, device=device)

# ---------------------------------------------------------------- float64

def test_float64_gradcheck():
    m = lt.nn.Transformer(4, 2, 1, 1, 6, 0.0, dtype=lt.float64)
    src = lt.tensor(rand(3, 1, 4, dtype=np.float64), requires_grad=True)
    tgt = lt.tensor(rand(2, 1, 4, seed=1, dtype=np.float64), requires_grad=True)
    mask = lt.nn.Transformer.generate_square_subsequent_mask(2, dtype=lt.float64)
    assert lt.autograd.gradcheck(lambda s, t: m(s, t, tgt_mask=mask), [src, tgt])
