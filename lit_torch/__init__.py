__version__ = "0.0.1"
# The package's front door: it only imports, in the order of the chapters. Like every __init__.py in lit_torch/ that
# no notebook exports, it is written by hand; its story is nbs/00_import.ipynb.

# What torch._C gives torch: devices, dtypes, generators (nbs/00_import.ipynb); torch.random, torch.cuda, torch.cpu
from ._C import (device, dtype, float16, float32, float64, int8, int16, int32, int64, uint8, complex64, complex128, get_default_dtype,
                 set_default_dtype, promote_types, Generator, default_generator)
from ._C import _bool as bool
from ._C import layout, strided, memory_format, contiguous_format, preserve_format, channels_last, channels_last_3d
from .random import manual_seed, seed, initial_seed, get_rng_state, set_rng_state
from . import random, cuda, cpu

# The Tensor and the ways to make one (nbs/01_tensor.ipynb)
from ._tensor import (Tensor, Size, tensor, as_tensor, from_numpy, from_dlpack, zeros, ones, empty, full, eye,
                      arange, linspace, rand, randn, randint, randperm,
                      zeros_like, ones_like, empty_like, full_like, rand_like, randn_like, randint_like)

# PyTorch's dtype aliases shadow builtins, so they live only here
from ._C import float16 as half, float32 as float, float64 as double, int16 as short, int32 as int, int64 as long
from ._C import complex64 as cfloat, complex128 as cdouble

# What torch/__init__.py (and torch._C) define themselves: compile, the default device, determinism, matmul precision,
# thread counts, finfo/iinfo, bfloat16 (nbs/16_torch_init.ipynb)
from ._torch_init import (bfloat16, float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz, typename, is_tensor, set_default_device, get_default_device,
                          use_deterministic_algorithms, are_deterministic_algorithms_enabled,
                          is_deterministic_algorithms_warn_only_enabled, set_deterministic_debug_mode,
                          get_deterministic_debug_mode, set_float32_matmul_precision, get_float32_matmul_precision,
                          get_num_threads, set_num_threads, get_num_interop_threads, set_num_interop_threads,
                          finfo, iinfo, compile)
# The legacy tensor types: torch.FloatTensor(...), isinstance(x, torch.LongTensor), x.type(torch.DoubleTensor)
from ._torch_init import (DoubleTensor, FloatTensor, HalfTensor, BFloat16Tensor, LongTensor, IntTensor, ShortTensor,
                          CharTensor, ByteTensor, BoolTensor)

# Autograd: grad modes, the graph, Function, the engine (nbs/02_autograd.ipynb and the pages after it)
from . import autograd
from .autograd.grad_mode import no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled

# The ops (nbs/02d_first_ops.ipynb, 03_ops): arithmetic, elementwise math, comparisons, reductions, softmax, matrix
# products. max, min, abs, pow, all, any and sum hide Python's builtins from here on, as torch's do.
from .ops import (add, mul, neg, sum, sub, subtract, div, divide, true_divide, floor_divide, remainder, pow, abs, absolute,
                  sign, exp, expm1, log, log1p, sqrt, rsqrt, sin, cos, tanh, sigmoid, relu, clamp, clip, clamp_min,
                  clamp_max, maximum, minimum, where, masked_fill, eq, ne, lt, le, gt, ge, greater, greater_equal, less,
                  less_equal, not_equal, equal, logical_and, logical_or, logical_xor, logical_not, bitwise_and, bitwise_or,
                  bitwise_xor, bitwise_not, isnan, isinf, isfinite, mean, var, std, prod, cumsum, logsumexp, amax, amin,
                  max, min, argmax, argmin, all, any, softmax, log_softmax, matmul, mm, bmm, dot, mv, clone, return_types)

# The rest of the pointwise math, with in-place and out= variants (nbs/03c_pointwise.ipynb). round hides Python's builtin.
from .ops import (absolute, acos, acosh, addcdiv, addcmul, allclose, angle, arccos, arccosh, arcsin, arcsinh, arctan,
                  arctan2, arctanh, asin, asinh, atan, atan2, atanh, bitwise_left_shift, bitwise_right_shift, ceil, copysign,
                  cosh, deg2rad, digamma, erf, erfc, erfinv, exp2, fix, float_power, floor, fmax, fmin, fmod, frac, frexp,
                  gcd, heaviside, hypot, i0, isclose, isneginf, isposinf, isreal, lcm, ldexp, lerp, lgamma, log10, log2,
                  logaddexp, logaddexp2, logit, multiply, mvlgamma, nan_to_num, negative, nextafter, polygamma, positive,
                  rad2deg, reciprocal, round, rsub, sgn, signbit, sinc, sinh, square, tan, trunc, xlogy)

# More reductions: scans, NaN-ignoring reductions, two statistics at once, counting (nbs/03d_reduce.ipynb)
from .ops import (aminmax, bincount, count_nonzero, cummax, cummin, cumprod, histc, logcumsumexp, nanmean, nansum,
                  std_mean, var_mean)

# More products: fused multiply-adds, outer/Kronecker/cross products, trace, vdot, inner, triangle indices (nbs/03e_products.ipynb)
from .ops import (addbmm, addmm, addmv, addr, baddbmm, cross, ger, inner, kron, outer, trace, tril_indices, triu_indices,
                  vdot)
# The ATen ops behind nn's layers that torch also exposes at the top level (nbs/07g_activation.ipynb and the nn pages after it)
# load on first use, from _lazy_ops (_C._LAZY below)

# Shapes, indexing, joining, gather/scatter (nbs/03a_shape.ipynb); torch/functional.py (nbs/03b_functional.ipynb)
from .shape_ops import (permute, transpose, swapaxes, swapdims, t, unsqueeze, squeeze, flatten, unflatten, movedim,
                        moveaxis, select, narrow, cat, concat, concatenate, stack, chunk, unbind, gather,
                        scatter, scatter_add, index_select, tril, triu)
from .functional import einsum, split
from . import functional

# --- Flipping, selecting and scattering (nbs/03f_indexing.ipynb): shape_ops kernels, then torch/functional.py's
from .shape_ops import (flip, fliplr, flipud, roll, rot90, tile, repeat_interleave, broadcast_to, hstack, vstack, dstack,
                        column_stack, row_stack, tensor_split, hsplit, vsplit, dsplit, split_with_sizes, unsafe_split,
                        unsafe_chunk, diagonal, diag_embed, diag, diagflat, diagonal_copy, as_strided, as_strided_copy,
                        nonzero, argwhere, nonzero_static, masked_select, masked_scatter, take, put, take_along_dim,
                        index_add, index_copy, index_fill, index_put, select_scatter, slice_scatter, diagonal_scatter,
                        as_strided_scatter, reshape, ravel, narrow_copy, permute_copy, transpose_copy, squeeze_copy,
                        unsqueeze_copy, t_copy, unbind_copy, split_with_sizes_copy, view_copy, expand_copy, unfold_copy,
                        alias_copy, combinations, adjoint, index_reduce, scatter_reduce)
from .functional import (broadcast_shapes, broadcast_tensors, meshgrid, atleast_1d, atleast_2d, atleast_3d, block_diag,
                         cartesian_prod, tensordot, cdist, chain_matmul, unravel_index)
# --- end of nbs/03f_indexing.ipynb
# --- Sorting and selection (nbs/03g_sorting.ipynb)
from .shape_ops import sort, argsort, msort, topk, kthvalue, median, nanmedian, quantile, nanquantile, mode, searchsorted, bucketize
from .functional import unique, unique_consecutive
# --- end of nbs/03g_sorting.ipynb
# --- Sampling (nbs/03h_sampling.ipynb): bernoulli, multinomial, normal and poisson load on first use, from _lazy_ops (_C._LAZY
# below); rand, randn, randint, randperm and the *_like are in _tensor above
# --- Complex numbers (nbs/03i_complex.ipynb); complex hides Python's builtin, as torch's does
from .ops import (real, imag, view_as_real, view_as_complex, complex, polar, conj, conj_physical, resolve_conj, resolve_neg,
                  is_complex, is_conj, is_neg)
# --- end of nbs/03i_complex.ipynb
# --- Linear algebra (nbs/03i_linalg.ipynb): torch.linalg, and its kernels that torch also exposes at the top level (det, svd, ...),
# load on first use (_C._LAZY below); norm and lu are torch.functional's
from .functional import norm, lu
# --- end of nbs/03i_linalg.ipynb

# Everything else loads the first time a program asks for it (nbs/00_import.ipynb lists them in _C._LAZY): nn (nbs/04_functional
# to 14d_dataparallel), save and load (06a_serialization), optim (08 to 08n), utils (11 to 11i, 16s, 16v), multiprocessing (16r),
# distributed (12 to 12b), linalg (03i), fft (03j), special (03k), backends (16a to 16g), accelerator (16i), amp and autocast (16j, 16k), jit,
# onnx, hub (16n to 16p), testing (16t, 16u). `import torch.nn`, `from torch import nn` and `torch.nn` all work, as in torch.
from ._C import _torch_getattr as __getattr__, _torch_dir as __dir__

# The storages under tensors and the legacy storage names checkpoints use (nbs/06b_storage.ipynb), with Tensor.stride,
# untyped_storage and nbytes. Importing it also readies torch.multiprocessing's tensor sharing, which registers with Python's
# multiprocessing: now if the program has imported multiprocessing (a spawned child has), else the moment it does (16r)
from . import storage
from .storage import (UntypedStorage, TypedStorage, DoubleStorage, FloatStorage, HalfStorage, LongStorage, IntStorage,
                      ShortStorage, CharStorage, ByteStorage, BoolStorage)
