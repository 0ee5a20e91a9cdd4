"""save + load of a state dict, torch.save/torch.load against lit_torch.save/lit_torch.load, side by side.
Goal (issue 17): lit_torch at most 2x torch on a 4,000-tensor state dict.

    python benchmarks/bench_serialization.py            # all cases, 3 interleaved rounds in separate processes
    python benchmarks/bench_serialization.py --rounds 5

Each round runs each library in its own process (so neither's threads or caches affect the other), builds the
same state dict from a seeded NumPy generator, saves and loads it once to warm up, then times REPS save+load
pairs to a file in a temporary directory. The table gives medians over rounds. lit_torch's save also fsyncs (its
saves are atomic), torch's does not. The safetensors rows compare safetensors.torch's save_file/load_file with
lit_torch.serialization.save_safetensors/load_safetensors.
"""
import argparse, json, os, subprocess, sys, tempfile, time
from pathlib import Path
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
CASES = {'4000 small (8x8 float32)': (4000, (8, 8)), '8 large (32 MiB float32 each)': (8, (2048, 4096))}
REPS = {'4000 small (8x8 float32)': 5, '8 large (32 MiB float32 each)': 3}

def _time_save_load(m, lib, fmt, sd, path, reps):
    "Check one save/load round trip at `path`, then time `reps` more: (save times, load times, file size)."
    if fmt == 'safetensors':
        if lib == 'torch':
            from safetensors.torch import save_file, load_file
            save, load = (lambda o, p: save_file(o, p)), (lambda p: load_file(p))
        else: save, load = m.serialization.save_safetensors, m.serialization.load_safetensors
    else: save, load = m.save, m.load
    save(sd, path); back = load(path)
    ordered = not (lib == 'torch' and fmt == 'safetensors')  # safetensors.torch returns its keys sorted
    assert (list(back) == list(sd) if ordered else sorted(back) == sorted(sd)) and all((back[k].numpy() == sd[k].numpy()).all() for k in list(sd)[:50])
    ts, tl = [], []
    for _ in range(reps):
        t0 = time.perf_counter(); save(sd, path); t1 = time.perf_counter(); load(path); t2 = time.perf_counter()
        ts.append(t1 - t0); tl.append(t2 - t1)
    return ts, tl, os.path.getsize(path)

def worker(lib, case, reps, fmt):
    if lib == 'torch': import torch as m
    else: sys.path.insert(0, str(ROOT)); import lit_torch as m
    n, shape = CASES[case]
    rng = np.random.default_rng(0)
    sd = {f'layer{i}.weight': m.from_numpy(rng.standard_normal(shape, dtype=np.float32)) for i in range(n)}
    with tempfile.TemporaryDirectory() as d:  # removed afterwards: each run writes up to 2 x 256 MiB
        path = os.path.join(d, 'ckpt.safetensors' if fmt == 'safetensors' else 'ckpt.pt')
        ts, tl, size = _time_save_load(m, lib, fmt, sd, path, reps)
    print(json.dumps({'save': float(np.median(ts)), 'load': float(np.median(tl)), 'bytes': size}))

def run(lib, case, fmt):
    out = subprocess.run([sys.executable, __file__, '--worker', lib, case, str(REPS[case]), fmt], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])

def main():
    ap = argparse.ArgumentParser(); ap.add_argument('--rounds', type=int, default=3); a = ap.parse_args()
    print(f"| case | format | torch save + load s | lit_torch save + load s | lit_torch / torch | lit save / load s | file MiB |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for case in CASES:
        for fmt in ('zip', 'safetensors'):
            rows = {'torch': [], 'lit': []}
            for r in range(a.rounds):
                for lib in (('torch', 'lit') if r % 2 == 0 else ('lit', 'torch')): rows[lib].append(run(lib, case, fmt))
            med = {lib: {k: float(np.median([x[k] for x in v])) for k in v[0]} for lib, v in rows.items()}
            t, l = med['torch']['save'] + med['torch']['load'], med['lit']['save'] + med['lit']['load']
            name = 'torch.save/load' if fmt == 'zip' else 'safetensors (torch: safetensors.torch)'
            print(f"| {case} | {name} | {t:.3f} | {l:.3f} | {l / t:.2f}x | {med['lit']['save']:.3f} / {med['lit']['load']:.3f} | {med['lit']['bytes'] / 2**20:.1f} |")
    print(f"\nmedians of {a.rounds} interleaved rounds, each a separate process per library; lit_torch's saves are atomic "
          "(temporary file, fsync, rename), torch's are not")

if __name__ == '__main__':
    if len(sys.argv) > 1 and sys.argv[1] == '--worker': worker(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])
    else: main()
