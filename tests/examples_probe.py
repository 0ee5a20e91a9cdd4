"""Run one unmodified PyTorch program under lit_torch (the launcher) or real torch, and record its first steps.

    python tests/examples_probe.py {lit,torch} OUT.npz MAX_BACKWARDS script.py args...

The program's files are not touched. The probe patches the framework it runs on, the same way for both:
- every random draw the programs make (weight init through `Tensor.uniform_`/`normal_`, `torch.randn`,
  `rand`, `randint`, `randperm` (so DataLoader shuffles), `randn_like`, `rand_like`, `multinomial`, and
  `F.dropout`, `F.dropout1d/2d/3d`, and the attention-weight dropout inside `F.scaled_dot_product_attention`,
  which `nn.MultiheadAttention` and so `nn.Transformer*` use in training) comes from one NumPy generator with a fixed seed, so both frameworks start from the same
  weights and see the same batches, noise and dropout masks;
- `nn.Parameter` creation is recorded (in order), the output of the first top-level module call is kept,
  and every `Tensor.backward` is timed; the first backward's loss and the parameters' gradients right
  after it are saved, with the losses of the first few backwards;
- after MAX_BACKWARDS backward calls (0: no limit) the program is stopped.
Python's `random` and NumPy's global generator are seeded too (siamese_network draws from `random`).

    python tests/examples_probe.py {lit,torch}:float64 ...

runs the same program as a float64 oracle: the default dtype is float64, `torch.float` and `Tensor.float()`
mean float64, and every draw is rounded to float32 first, so the weights and inputs are exactly those of
the float32 run. Its gradients are the float32 runs' truth, up to float64 rounding: when lit_torch and
torch differ in float32, it says which of the two is off (a ReLU whose input is within rounding of 0
takes a different branch in each; see nbs/17a_runs_your_code)."""
import math, os, random, runpy, sys, time, traceback
import numpy as np

framework, out_path, max_backwards = sys.argv[1], sys.argv[2], int(sys.argv[3])
framework, _, precision = framework.partition(':')
FLOAT64 = precision == 'float64'
argv = sys.argv[4:]
if framework == 'lit':
    import lit_torch.run
    lit_torch.run.install()
import torch
import torch.nn.functional as F

if FLOAT64:
    torch.set_default_dtype(torch.float64)
    torch.float = torch.float32 = torch.float64
    torch.Tensor.float = torch.Tensor.double

_rng = np.random.default_rng(20240601)
random.seed(0); np.random.seed(0)
record = dict(params=[], losses=[], times=[], out=None, grads=None, error='')
N_LOSSES = 8


class _Stop(BaseException):
    "Raised after MAX_BACKWARDS backward calls; no program catches a BaseException of its own."


def _dtype(kw, default=None):
    return kw.get('dtype') or default or torch.get_default_dtype()


def _float32(a):
    "A draw as the float32 run sees it (the float64 oracle starts from the same rounded numbers)."
    a = np.asarray(a)
    return a.astype(np.float32).astype(np.float64) if FLOAT64 and a.dtype.kind == 'f' else a


def _make(a, kw, default=None):
    a = _float32(a)
    t = torch.from_numpy(np.ascontiguousarray(a)).to(_dtype(kw, default))
    return t.requires_grad_() if kw.get('requires_grad') else t


def _size(args):
    return tuple(args[0]) if len(args) == 1 and isinstance(args[0], (tuple, list, torch.Size)) else tuple(args)


def randn(*size, **kw): return _make(_rng.standard_normal(_size(size)), kw)
def rand(*size, **kw): return _make(_rng.random(_size(size)), kw)
def randn_like(x, **kw): return _make(_rng.standard_normal(tuple(x.shape)), kw, x.dtype)
def rand_like(x, **kw): return _make(_rng.random(tuple(x.shape)), kw, x.dtype)


def randint(*args, **kw):
    args = list(args)
    size = kw.pop('size', None)
    if size is None: size = args.pop()
    low, high = (0, args[0]) if len(args) == 1 else (args[0], args[1])
    low, high = kw.pop('low', low), kw.pop('high', high)
    return _make(_rng.integers(low, high, size=tuple(size)), kw, torch.int64)


def randperm(n, **kw): return _make(_rng.permutation(n), kw, torch.int64)


def multinomial(input, num_samples, replacement=False, **kw):
    p = input.detach().double().numpy(); p = p / p.sum(-1, keepdims=True)
    rows = p.reshape(-1, p.shape[-1])
    idx = np.stack([_rng.choice(rows.shape[1], num_samples, replace=replacement, p=r) for r in rows])
    return torch.from_numpy(idx.reshape(*p.shape[:-1], num_samples))


def _filled(self, a):
    with torch.no_grad(): self.copy_(torch.from_numpy(_float32(a)).to(self.dtype))
    return self


def uniform_(self, a=0.0, b=1.0, **kw): return _filled(self, _rng.uniform(a, b, tuple(self.shape)))
def normal_(self, mean=0.0, std=1.0, **kw): return _filled(self, _rng.normal(mean, std, tuple(self.shape)))


def dropout(input, p=0.5, training=True, inplace=False):
    if not training or p == 0: return input
    keep = (_rng.random(tuple(input.shape)) >= p) / (1 - p)
    mask = torch.from_numpy(keep).to(input.dtype)
    return input.mul_(mask) if inplace else input * mask


def _feature_dropout(d):
    "F.dropout1d/2d/3d: one draw per channel of a batched input; unbatched inputs as PyTorch reads them."
    def feature_dropout(input, p=0.5, training=True, inplace=False):
        if not training or p == 0: return input
        shape = tuple(input.shape)
        if len(shape) <= 2: noise = shape  # torch's deprecated 2-D input: one draw per element
        elif len(shape) == d + 1: noise = shape[:1] + (1,) * d  # unbatched (C, ...)
        else: noise = shape[:2] + (1,) * (len(shape) - 2)
        keep = (_rng.random(noise) >= p) / (1 - p)
        mask = torch.from_numpy(np.ascontiguousarray(keep)).to(input.dtype)
        return input.mul_(mask) if inplace else input * mask
    return feature_dropout


def _shared_sdpa(native):
    """torch's F.scaled_dot_product_attention draws its dropout mask inside C++; with dropout on, compute the
    math version instead, so that the mask over the attention weights is the probe's draw (as lit_torch's is)."""
    def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                     enable_gqa=False):
        if dropout_p == 0:
            return native(query, key, value, attn_mask, 0.0, is_causal, scale=scale, enable_gqa=enable_gqa)
        if enable_gqa:
            rep = query.size(-3) // key.size(-3)
            key, value = key.repeat_interleave(rep, -3), value.repeat_interleave(rep, -3)
        s = query @ key.transpose(-2, -1) * (1 / math.sqrt(query.size(-1)) if scale is None else scale)
        if is_causal: s = s.masked_fill(~torch.ones(s.shape[-2:], dtype=torch.bool).tril(), float('-inf'))
        if attn_mask is not None:
            s = s.masked_fill(~attn_mask, float('-inf')) if attn_mask.dtype == torch.bool else s + attn_mask
        return dropout(s.softmax(-1), dropout_p) @ value
    return scaled_dot_product_attention


def _keep_mask(x, p):
    "lit_torch's attention dropout mask (nn.functional._keep_mask), drawn as `dropout` draws it."
    return ((_rng.random(tuple(x.shape)) >= p) / (1 - p)).astype(x.numpy().dtype)


for name, fn in dict(randn=randn, rand=rand, randn_like=randn_like, rand_like=rand_like, randint=randint,
                     randperm=randperm, multinomial=multinomial).items():
    setattr(torch, name, fn)
torch.Tensor.uniform_, torch.Tensor.normal_ = uniform_, normal_
F.dropout = dropout
F.dropout1d, F.dropout2d, F.dropout3d = _feature_dropout(1), _feature_dropout(2), _feature_dropout(3)
if framework == 'lit': F._keep_mask = _keep_mask  # lit_torch's multi_head_attention_forward calls its kernel directly
else: F.scaled_dot_product_attention = _shared_sdpa(F.scaled_dot_product_attention)
import torch.utils.data.sampler as _sampler
if hasattr(_sampler, 'randperm'): _sampler.randperm = randperm  # lit_torch's sampler binds randperm by name

_new = torch.nn.Parameter.__new__
def _param_new(cls, *args, **kwargs):
    p = _new(cls, *args, **kwargs)
    record['params'].append(p)
    return p
torch.nn.Parameter.__new__ = _param_new

_call, _depth = torch.nn.Module.__call__, [0]
def _module_call(self, *args, **kwargs):
    _depth[0] += 1
    try: out = _call(self, *args, **kwargs)
    finally: _depth[0] -= 1
    if _depth[0] == 0 and record['out'] is None:
        first = out[0] if isinstance(out, (tuple, list)) else out
        if isinstance(first, torch.Tensor): record['out'] = first.detach().double().cpu().numpy().copy()
    return out
torch.nn.Module.__call__ = _module_call

_backward = torch.Tensor.backward
def _timed_backward(self, *args, **kwargs):
    record['times'].append(time.perf_counter())
    if len(record['losses']) < N_LOSSES and self.numel() == 1: record['losses'].append(float(self.item()))
    result = _backward(self, *args, **kwargs)
    if record['grads'] is None:
        record['grads'] = [p.grad.detach().double().cpu().numpy().copy() for p in record['params'] if p.grad is not None]
    if max_backwards and len(record['times']) >= max_backwards: raise _Stop
    return result
torch.Tensor.backward = _timed_backward


def _save():
    arrays = {f'grad{i}': g for i, g in enumerate(record['grads'] or [])}
    if record['out'] is not None: arrays['out'] = record['out']
    np.savez(out_path, losses=np.array(record['losses']), times=np.array(record['times']),
             n_grads=len(record['grads'] or []), error=record['error'], **arrays)


code = 0
try:
    if framework == 'lit': lit_torch.run.main(argv)
    else:
        sys.argv = argv
        sys.path[0] = os.path.dirname(os.path.abspath(argv[0]))
        runpy.run_path(argv[0], run_name='__main__')
except _Stop: pass
except SystemExit as e:
    code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
except BaseException:
    record['error'] = traceback.format_exc()[-3000:]
    traceback.print_exc()
    code = 1
_save()
sys.exit(code)
