#!/usr/bin/env bash
# The prepared check for a lent GPU machine (one NVIDIA GPU, no network): run from the repository root, or anywhere.
#
#   OUT=/some/dir bash benchmarks/gpu_check.sh        # everything lands in $OUT (default ./gpu_out)
#
# Steps, each with its own time limit (the limits add up to the budget), all within GPU_CHECK_BUDGET seconds (default
# 450, so the whole check ends in under 8 minutes); a step that fails or times out is recorded and the next one runs:
#   env               nvidia-smi, Python, torch, CuPy, NCCL, mpi4py versions
#   tests             the CUDA tests against the real CuPy (emulation off): test_cuda.py, test_cuda_distributed.py and the
#                     other device tests `make test-cuda-emulated` runs (test_fake_cupy.py aside: it tests the emulation)
#   sync_detect       each layer's forward/backward and a training step under cupyx.allow_synchronize(False)
#   bench_transformer benchmarks/bench_transformer.py --device cuda (float32, torch's TF32 off), ratios to torch
#   bench_nn          benchmarks/bench_nn.py --device cuda
#   bench_rnn         benchmarks/bench_rnn.py --device cuda --rounds 1 (LSTM, word LM, GRU, packed LSTM)
#   dates_lit_torch   the date demo (examples/train_dates.py) on the GPU for 200 steps, then the same on torch
#   dates_torch
#   tests_nn          tests/test_cuda_nn.py: every nn class, packed RNNs, every optimizer on cuda:0 (one GPU: the cuda:1
#                     cases skip); last, as it is the longest (CuPy compiles each new kernel on first use)
# Needs python3 with torch (CUDA), cupy, numpy, pytest, safetensors (mpi4py + mpiexec for the distributed tests); no
# network. tqdm and expecttest (torch's module_db needs it) get stand-ins when missing. lit_torch comes from this
# checkout through PYTHONPATH; nothing is installed. Everything the check writes is under $OUT: one log per step,
# tests.xml and tests_nn.xml (JUnit), the demo's plots, and summary.txt with one line per step. CuPy's kernel cache,
# matplotlib's config and Python's bytecode go to a temporary folder that is removed at the end.
set -u
cd "$(dirname "$0")/.."
ROOT="$PWD"
OUT="${OUT:-./gpu_out}"
mkdir -p "$OUT" && OUT="$(cd "$OUT" && pwd)"
PY="${PYTHON:-python3}"
BUDGET="${GPU_CHECK_BUDGET:-450}"
START=$(date +%s)
SUMMARY="$OUT/summary.txt"
: > "$SUMMARY"
unset LIT_TORCH_EMULATE_CUDA
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export CUPY_CACHE_DIR="$WORK/cupy_cache" MPLCONFIGDIR="$WORK/mpl" PYTHONPYCACHEPREFIX="$WORK/pycache" MPLBACKEND=Agg
mkdir -p "$WORK/shim"

# tqdm is only a progress bar for the date demo: a stand-in when it is missing (the machine has no network)
if ! "$PY" -c 'import tqdm' 2>/dev/null; then
  cat > "$WORK/shim/tqdm.py" <<'EOF'
class tqdm:
    "A silent stand-in for tqdm's bar (gpu_check.sh)."
    def __init__(self, *a, **k): pass
    def update(self, n=1): pass
    def set_postfix(self, *a, **k): pass
    def write(self, s): print(s)
    def close(self): pass
EOF
fi
# expecttest: torch.testing._internal.common_utils imports it for its TestCase base class (module_db needs it)
if ! "$PY" -c 'import expecttest' 2>/dev/null; then
  cat > "$WORK/shim/expecttest.py" <<'EOF'
"A stand-in for expecttest (gpu_check.sh): what torch.testing._internal.common_utils uses of it at import."
import unittest
ACCEPT = False
class TestCase(unittest.TestCase):
    def assertExpectedInline(self, actual, expect, skip=0): self.assertEqual(actual, expect)
EOF
fi
export PYTHONPATH="$WORK/shim${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1

step() {  # step NAME LIMIT COMMAND...: run COMMAND into $OUT/NAME.log under min(LIMIT, what is left of the budget)
  local name=$1 limit=$2; shift 2
  local left=$(( BUDGET - ($(date +%s) - START) ))
  if [ "$left" -lt 20 ]; then echo "$name: SKIPPED (the ${BUDGET}s budget is spent)" | tee -a "$SUMMARY"; return 0; fi
  [ "$limit" -gt "$left" ] && limit=$left
  local t0=$(date +%s) rc status
  timeout -k 10 "$limit" "$@" > "$OUT/$name.log" 2>&1
  rc=$?
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then status="TIMEOUT after ${limit}s"
  elif [ "$rc" -ne 0 ]; then status="FAILED (exit $rc)"
  else status=ok; fi
  echo "$name: $status in $(( $(date +%s) - t0 ))s; last line: $(tail -n 1 "$OUT/$name.log" | cut -c1-200)" | tee -a "$SUMMARY"
  return 0
}

cat > "$WORK/env.py" <<'EOF'
import sys, numpy, torch
print('python', sys.version.split()[0], '| numpy', numpy.__version__, '| torch', torch.__version__, 'cuda', torch.version.cuda,
      '| torch sees', torch.cuda.device_count(), 'GPU(s):', torch.cuda.get_device_name() if torch.cuda.is_available() else '-')
import cupy
print('cupy', cupy.__version__, '| CUDA runtime', cupy.cuda.runtime.runtimeGetVersion(), '| devices', cupy.cuda.runtime.getDeviceCount())
try:
    from cupy.cuda import nccl; print('nccl', nccl.get_version())
except Exception as e: print('nccl: unavailable', e)
try:
    import mpi4py, shutil; print('mpi4py', mpi4py.__version__, '| mpiexec', shutil.which('mpiexec'))
except Exception as e: print('mpi4py: unavailable', e)
import lit_torch as lt
print('lit_torch', lt.__file__, '| cuda available', lt.cuda.is_available(), '| devices', lt.cuda.device_count())
EOF
step env 30 bash -c "nvidia-smi; \"$PY\" \"$WORK/env.py\""

CUDA_TESTS="tests/test_cuda.py tests/test_cuda_distributed.py tests/test_devices.py tests/test_backend.py
  tests/test_transformer.py::test_transformer_on_device tests/test_data_parallel.py::test_cuda_same_as_plain"
# shellcheck disable=SC2086
step tests 100 "$PY" -m pytest -q -p no:cacheprovider -rfEXx --durations=15 --junitxml="$OUT/tests.xml" $CUDA_TESTS

cat > "$WORK/sync_detect.py" <<'EOF'
"Which layers make the host wait for the GPU? Each runs under cupyx.allow_synchronize(False); a sync raises there."
import traceback, cupyx
import lit_torch as lt
from lit_torch import nn
import lit_torch.nn.functional as F
d = 'cuda'
cases = {
    'Linear': (nn.Linear(16, 4), lambda: lt.randn(8, 16, device=d)),
    'Embedding': (nn.Embedding(10, 4), lambda: lt.randint(0, 10, (3, 5), device=d)),
    'LayerNorm': (nn.LayerNorm(16), lambda: lt.randn(8, 16, device=d)),
    'Dropout': (nn.Dropout(0.3), lambda: lt.randn(8, 16, device=d)),
    'BatchNorm1d': (nn.BatchNorm1d(16), lambda: lt.randn(8, 16, device=d)),
    'Conv2d': (nn.Conv2d(3, 4, 3, padding=1), lambda: lt.randn(2, 3, 8, 8, device=d)),
    'MaxPool2d': (nn.MaxPool2d(2), lambda: lt.randn(2, 3, 8, 8, device=d)),
    'MultiheadAttention': (nn.MultiheadAttention(16, 2, batch_first=True), lambda: lt.randn(2, 5, 16, device=d)),
}
def run(name, m, make):
    m.to(d)
    x = make()
    if x.dtype.is_floating_point: x.requires_grad_(True)
    for guarded in (False, True):   # a first run compiles the kernels (compilation may sync), the second is checked
        with cupyx.allow_synchronize(not guarded):
            out = m(x, x, x)[0] if name == 'MultiheadAttention' else m(x)
            out.sum().backward()
for name, (m, make) in cases.items():
    try: run(name, m, make); print(f'{name:20s} no sync')
    except cupyx.DeviceSynchronized:
        where = [f for f in traceback.extract_tb(__import__('sys').exc_info()[2]) if 'lit_torch' in f.filename]
        print(f'{name:20s} SYNC at ' + (f'{where[-1].filename.split("lit_torch/")[-1]}:{where[-1].lineno} {where[-1].line}' if where else '?'))
    except Exception as e: print(f'{name:20s} ERROR {type(e).__name__}: {e}')
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4)).to(d)
opt = lt.optim.AdamW(model.parameters())
x, y = lt.randn(8, 16, device=d), lt.randint(0, 4, (8,), device=d)
for guarded in (False, True):
    try:
        with cupyx.allow_synchronize(not guarded):
            opt.zero_grad(); F.cross_entropy(model(x), y).backward(); opt.step()
        if guarded: print('training step (cross_entropy, AdamW): no sync')
    except cupyx.DeviceSynchronized:
        where = [f for f in traceback.extract_tb(__import__('sys').exc_info()[2]) if 'lit_torch' in f.filename]
        print('training step (cross_entropy, AdamW): SYNC at ' + (f'{where[-1].filename.split("lit_torch/")[-1]}:{where[-1].lineno}' if where else '?'))
print('done')
EOF
step sync_detect 30 "$PY" "$WORK/sync_detect.py"

step bench_transformer 50 "$PY" benchmarks/bench_transformer.py --device cuda
step bench_nn 40 "$PY" benchmarks/bench_nn.py --device cuda
step bench_rnn 40 "$PY" benchmarks/bench_rnn.py --device cuda --rounds 1

cat > "$WORK/dates.py" <<'EOF'
"The date demo on the GPU for one epoch of 200 steps (DATES_TORCH=1: on torch), with the loss, accuracy and ms/step it reached."
import os, runpy, sys
out = sys.argv[1]
ex = runpy.run_path(os.path.join(os.getcwd(), 'examples', 'train_dates.py'))
try: import matplotlib  # noqa: F401
except ImportError: matplotlib = None
lib = ex['torch'].__name__
plots = {} if matplotlib else {'loss_plot': None, 'attention_plot': None}
if matplotlib: plots = {'loss_plot': os.path.join(out, f'dates_loss_{lib}.png'), 'attention_plot': os.path.join(out, f'dates_attention_{lib}.png')}
if lib == 'torch': ex['torch'].backends.cuda.matmul.allow_tf32 = ex['torch'].backends.cudnn.allow_tf32 = False
r = ex['main'](epochs=1, n_train=12800, device='cuda', progress=False, num_workers=2, **plots)   # 200 steps
print(f"{lib}: {r['steps']} steps, first loss {r['losses'][0]:.3f}, last {sum(r['losses'][-20:]) / 20:.3f}, "
      f"held-out exact match {r['acc']:.2%}, {1000 * r['train_time'] / r['steps']:.1f} ms/step, {r['wall']:.1f} s in all")
EOF
step dates_lit_torch 50 "$PY" "$WORK/dates.py" "$OUT"
step dates_torch 20 env DATES_TORCH=1 "$PY" "$WORK/dates.py" "$OUT"

# -v: one line per test in the log, so a step cut short by its limit still says how far it got
step tests_nn 90 "$PY" -m pytest -v -p no:cacheprovider -rfEX --durations=10 --junitxml="$OUT/tests_nn.xml" tests/test_cuda_nn.py

echo "gpu_check: $(( $(date +%s) - START ))s in all; logs in $OUT" | tee -a "$SUMMARY"
exit 0
