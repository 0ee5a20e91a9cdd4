"""pytorch/examples, unmodified, under `lit-torch-run` and under real torch: does each run, and does it match?

    python benchmarks/run_examples.py [--examples DIR] [--only NAME ...] [--json OUT]

DIR is a checkout of github.com/pytorch/examples (default: $LIT_TORCH_EXAMPLES). Nothing of it is copied
here. For each program this
1. runs it as a user would, `python -m lit_torch.run script.py args` (torchvision is the stand-in in
   tests/fake_torchvision: random data of MNIST's and CIFAR's shapes), and reports whether it exits 0;
2. runs it again under lit_torch and under torch through tests/examples_probe.py, which feeds both the same
   random draws (so the same initial weights, batches, noise and dropout masks) and records the first
   top-level module output, the losses of the first backwards, the gradients after the first backward,
   and the time between backwards; the table gives the largest differences and lit_torch's step time
   over torch's (both with the probe's NumPy draws);
3. where the float32 gradients differ by more than 1e-4 (relative), runs both again as a float64 oracle on the
   same float32 weights and inputs (`examples_probe.py lit:float64 ...`), to say which float32 run is off;
4. with `--repeat N`, times N more rounds over all programs, lit_torch and torch back to back in alternating
   order, on one thread each (`--threads`), and reports the median ratio and its range (a shared machine
   loads both alike).
"""
import argparse, json, os, subprocess, sys, tempfile, time
from pathlib import Path
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
PROBE = ROOT / 'tests' / 'examples_probe.py'
FAKE_TV = ROOT / 'tests' / 'fake_torchvision'
PY = sys.executable


def _wlm(model):
    common = ['--data', '{data}', '--model', model, '--epochs', '1', '--emsize', '32', '--nhid', '32', '--bptt', '20',
              '--save', '{work}/model.pt']
    return dict(script='word_language_model/main.py', runs=common, compare=common + ['--dropout', '0'], backwards=5)


def _gen(model):
    return dict(script='word_language_model/generate.py', needs=f'wlm {model}',
                runs=['--data', '{data}', '--checkpoint', '{work}/model.pt', '--words', '40', '--outf', '{work}/gen.txt'],
                compare=['--data', '{data}', '--checkpoint', '{work}/model.pt', '--words', '40', '--outf', '{work}/gen.txt'],
                backwards=0)


MNIST_ARGS = ['--epochs', '1', '--batch-size', '64', '--test-batch-size', '128']
PROGRAMS = {
    'mnist': dict(script='mnist/main.py', runs=MNIST_ARGS, compare=MNIST_ARGS, backwards=4, size=256),
    'mnist_rnn': dict(script='mnist_rnn/main.py', runs=MNIST_ARGS, compare=MNIST_ARGS, backwards=4, size=256),
    'mnist_forward_forward': dict(script='mnist_forward_forward/main.py',
                                  runs=['--epochs', '3', '--train_size', '256', '--test_size', '128', '--log-interval', '1'],
                                  compare=['--epochs', '3', '--train_size', '256', '--test_size', '128', '--log-interval', '1'],
                                  backwards=6, size=256),
    'vae': dict(script='vae/main.py', runs=['--epochs', '1', '--batch-size', '64'], compare=['--epochs', '1', '--batch-size', '64'],
                backwards=4, size=256),
    'siamese_network': dict(script='siamese_network/main.py', runs=['--epochs', '1', '--batch-size', '16', '--test-batch-size', '32', '--dry-run'],
                            compare=['--epochs', '1', '--batch-size', '16', '--test-batch-size', '32'], backwards=3, size=64),
    'regression': dict(script='regression/main.py', runs=[], compare=[], backwards=20),
    **{f'wlm {m}': _wlm(m) for m in ('Transformer', 'LSTM', 'GRU', 'RNN_TANH')},
    **{f'wlm generate {m}': _gen(m) for m in ('Transformer', 'LSTM', 'GRU', 'RNN_TANH')},
    'time_sequence_prediction': dict(script='time_sequence_prediction/train.py', runs=['--steps', '1'], compare=['--steps', '1'],
                                     backwards=6, sine=True, env={'TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD': '1'}),
    'dcgan': dict(script='dcgan/main.py',
                  runs=['--dataset', 'fake', '--dry-run', '--batchSize', '16', '--workers', '2', '--ngf', '16', '--ndf', '16',
                        '--nz', '32', '--manualSeed', '1', '--outf', '{work}'],
                  compare=['--dataset', 'fake', '--niter', '1', '--batchSize', '16', '--workers', '0', '--ngf', '16', '--ndf', '16',
                           '--nz', '32', '--manualSeed', '1', '--outf', '{work}'], backwards=9, size=64),
}


def write_text_data(folder):
    "train/valid/test.txt for word_language_model: Zipf-distributed words from a 300-word vocabulary."
    rng = np.random.default_rng(0)
    vocab, p = [f'w{i}' for i in range(300)], 1 / np.arange(1, 301)
    for name, lines in [('train', 300), ('valid', 40), ('test', 40)]:
        with open(Path(folder) / f'{name}.txt', 'w') as f:
            for _ in range(lines): f.write(' ' + ' '.join(rng.choice(vocab, size=rng.integers(5, 20), p=p / p.sum())) + ' \n')


def write_sine_data(path, n=8, length=60, period=20):
    "time_sequence_prediction's traindata.pt (a float64 ndarray of sine waves, as generate_sine_wave.py writes), smaller."
    rng = np.random.default_rng(2)
    x = np.arange(length) + rng.integers(-4 * period, 4 * period, n).reshape(n, 1)
    sys.path.insert(0, str(ROOT))
    import lit_torch
    lit_torch.save(np.sin(x / period).astype('float64'), path)


def _env(spec, framework, threads=None):
    env = dict(os.environ, MPLBACKEND='Agg', FAKE_TORCHVISION_SIZE=str(spec.get('size', 256)), **spec.get('env', {}))
    if threads:  # torch's intra-op pool and NumPy's BLAS alike
        env.update({k: str(threads) for k in ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS')})
    paths = [str(FAKE_TV)] + ([str(ROOT)] if framework == 'lit' else [])
    env['PYTHONPATH'] = os.pathsep.join(paths)
    return env


def _run(cmd, cwd, env, timeout):
    t = time.perf_counter()
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
        return p.returncode, (p.stdout + p.stderr)[-4000:], time.perf_counter() - t
    except subprocess.TimeoutExpired as e:
        return 'timeout', str(e)[-2000:], time.perf_counter() - t


def _fill(args, **kw): return [a.format(**kw) for a in args]


def prepare(work, spec, data):
    os.makedirs(work, exist_ok=True)
    os.makedirs(Path(work) / 'results', exist_ok=True)  # vae saves its samples there
    if spec.get('sine'): write_sine_data(Path(work) / 'traindata.pt')


def probe(name, fw, examples, scratch, timeout=600, tag='', threads=None):
    """One probe run of program `name` under `fw` ('lit', 'torch', or either with ':float64'); returns its record,
    or (None, error text). Each framework and precision works in its own folder."""
    spec, data = PROGRAMS[name], Path(scratch) / 'text'
    work = Path(scratch) / (spec['needs'] if 'needs' in spec else name).replace(' ', '_')
    base, _, precision = fw.partition(':')
    label = base + (f'_{precision}' if precision else '') + tag
    out, fw_work = Path(work) / f'probe_{label}.npz', Path(work) / f'compare_{label}'
    prepare(fw_work, spec, data)
    args = _fill(spec['compare'], data=data, work=work if 'needs' in spec else fw_work)
    if 'needs' in spec and base == 'torch': args = args[:-1] + [str(Path(work) / f'gen_{label}.txt')]
    if out.exists(): out.unlink()
    script = str(Path(examples) / spec['script'])
    rc, log, _ = _run([PY, str(PROBE), fw, str(out), str(spec['backwards']), script, *args], fw_work, _env(spec, base, threads), timeout)
    if rc != 0 or not out.exists(): return None, f'{fw}: rc={rc}\n{log}'
    return dict(np.load(out)), ''


def run_program(name, examples, scratch, timeout=600, oracle_above=1e-4):
    """One program: the plain launcher run, then the probe under both frameworks. Returns a dict for the table.
    When the float32 gradients differ by more than `oracle_above` (relative), both frameworks run again as a
    float64 oracle on the same float32 weights and inputs, to say which float32 run is off and by how much."""
    spec, data = PROGRAMS[name], Path(scratch) / 'text'
    if not data.exists(): data.mkdir(parents=True); write_text_data(data)
    work = Path(scratch) / (spec['needs'] if 'needs' in spec else name).replace(' ', '_')
    if 'needs' in spec and not (work / 'model.pt').exists(): run_program(spec['needs'], examples, scratch, timeout)
    prepare(work, spec, data)
    script = str(Path(examples) / spec['script'])
    res = dict(program=name)
    rc, log, secs = _run([PY, '-m', 'lit_torch.run', script, *_fill(spec['runs'], data=data, work=work)], work, _env(spec, 'lit'), timeout)
    res.update(runs=rc == 0, rc=rc, log=log, seconds=round(secs, 1))
    if rc != 0: return res
    got = {}
    for fw in ('lit', 'torch'):
        got[fw], err = probe(name, fw, examples, scratch, timeout)
        if got[fw] is None: res.update(compared=False, compare_error=err); return res
    res.update(compared=True, **compare(got['lit'], got['torch']))
    if isinstance(res.get('grad_rel'), float) and res['grad_rel'] > oracle_above:
        for fw in ('lit', 'torch'):
            got[fw + '64'], err = probe(name, fw + ':float64', examples, scratch, timeout)
            if got[fw + '64'] is None: res.update(oracle_error=err); return res
        res.update(grad64_rel=grad_rel(got['lit64'], got['torch64']), lit_vs_float64=grad_rel(got['lit'], got['torch64']),
                   torch_vs_float64=grad_rel(got['torch'], got['torch64']))
    return res


def step_times(r):
    "Seconds between successive backwards, without the first (which includes warm-up)."
    return np.diff(r['times'])[1:]


def time_pair(name, examples, scratch, lit_first=True, timeout=600, threads=1):
    """One lit_torch and one torch probe run back to back, each on `threads` threads (one by default: on a
    shared machine a second thread mostly waits); returns (lit/torch step-time ratio, torch ms) or None."""
    times = {}
    for fw in (('lit', 'torch') if lit_first else ('torch', 'lit')):
        rec, err = probe(name, fw, examples, scratch, timeout, tag='_timing', threads=threads)
        if rec is None: return None
        times[fw] = step_times(rec)
    if not len(times['torch']) or len(times['lit']) != len(times['torch']): return None
    return float(times['lit'].mean() / times['torch'].mean()), float(times['torch'].mean() * 1e3)


def time_programs(names, examples, scratch, repeat=5, threads=1):
    """Step-time ratios lit/torch, `repeat` rounds over all programs. Within a round each program runs lit then torch
    or torch then lit (alternating by round), so the load of a shared machine falls on both frameworks alike.
    Returns {name: [(ratio, torch_ms), ...]}."""
    got = {n: [] for n in names if PROGRAMS[n]['backwards'] != 0}
    for i in range(repeat):
        for n in got:
            pair = time_pair(n, examples, scratch, lit_first=i % 2 == 0, threads=threads)
            if pair: got[n].append(pair)
        print(f'timing round {i + 1}/{repeat} done', file=sys.stderr)
    return got


def add_timings(results, timings):
    "Median and spread of the repeated ratios into each program's result."
    for r in results:
        pairs = timings.get(r['program'])
        if not pairs: continue
        ratios, ms = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
        r.update(ratio=float(np.median(ratios)), ratio_min=float(ratios.min()), ratio_max=float(ratios.max()),
                 n_timings=len(pairs), torch_ms=float(np.median(ms)))


def grad_rel(a, b):
    "Largest absolute difference over all gradients of records a and b, over b's largest gradient."
    n = int(b['n_grads'])
    return float(max(np.abs(a[f'grad{i}'] - b[f'grad{i}']).max() for i in range(n))
                 / max(float(max(np.abs(b[f'grad{i}']).max() for i in range(n))), 1e-30))


def compare(a, b):
    "Largest differences between two probe records, and the step-time ratio."
    r = {}
    if 'out' in a and 'out' in b:
        r['out'] = float(np.abs(a['out'] - b['out']).max()) if a['out'].shape == b['out'].shape else f"shapes {a['out'].shape} vs {b['out'].shape}"
    la, lb = a['losses'], b['losses']
    if len(la) and len(lb):
        r['loss1'] = float(abs(la[0] - lb[0]))
        k = min(len(la), len(lb)); r['losses'] = float(np.abs(la[:k] - lb[:k]).max()); r['n_losses'] = k
    na, nb = int(a['n_grads']), int(b['n_grads'])
    if na or nb:
        if na != nb: r['grad'] = f'{na} vs {nb} gradients'
        else:
            ga, gb = [a[f'grad{i}'] for i in range(na)], [b[f'grad{i}'] for i in range(nb)]
            if any(x.shape != y.shape for x, y in zip(ga, gb)): r['grad'] = 'shapes differ'
            else:
                r['grad'] = float(max(np.abs(x - y).max() for x, y in zip(ga, gb)))
                r['grad_rel'] = grad_rel(a, b)
    ta, tb = step_times(a), step_times(b)
    if len(ta) and len(ta) == len(tb): r['ratio'] = float(ta.mean() / tb.mean()); r['torch_ms'] = float(tb.mean() * 1e3)
    return r


def _fmt(v, f='{:.1e}'):
    return '-' if v is None else (f.format(v) if isinstance(v, float) else str(v))


def table(results):
    lines = ['| program | runs? | max abs Δ output | max abs Δ loss, step 1 (first n) | max abs Δ grad (relative) | step time, lit/torch (median, range) |',
             '|---|---|---|---|---|---|']
    for r in results:
        runs = 'yes' if r['runs'] else f"no (rc {r['rc']})"
        if not r.get('compared'):
            lines.append(f"| {r['program']} | {runs} | - | - | - | - |"); continue
        loss = '-' if 'loss1' not in r else f"{_fmt(r['loss1'])} ({_fmt(r['losses'])}, n={r['n_losses']})"
        grad = _fmt(r.get('grad')) + (f" ({_fmt(r['grad_rel'])})" if 'grad_rel' in r else '')
        if 'lit_vs_float64' in r:
            grad += f"; vs float64: lit {_fmt(r['lit_vs_float64'])}, torch {_fmt(r['torch_vs_float64'])}"
        ratio = '-' if 'ratio' not in r else f"{r['ratio']:.2f}x"
        if 'n_timings' in r: ratio += f" ({r['ratio_min']:.2f}–{r['ratio_max']:.2f}, n={r['n_timings']})"
        if 'ratio' in r: ratio += f" (torch {r['torch_ms']:.1f} ms)"
        lines.append(f"| {r['program']} | {runs} | {_fmt(r.get('out'))} | {loss} | {grad} | {ratio} |")
    return '\n'.join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--examples', default=os.environ.get('LIT_TORCH_EXAMPLES'))
    ap.add_argument('--only', nargs='*', default=None)
    ap.add_argument('--json', default=None)
    ap.add_argument('--scratch', default=None)
    ap.add_argument('--threads', type=int, default=1, help='threads for the timing rounds, both frameworks (default 1)')
    ap.add_argument('--repeat', type=int, default=1, help='timing rounds over all programs, interleaved (default 1: '
                    'the ratio of the comparison run only)')
    opts = ap.parse_args()
    if not opts.examples or not Path(opts.examples, 'mnist', 'main.py').exists():
        sys.exit('need a pytorch/examples checkout: --examples DIR or LIT_TORCH_EXAMPLES')
    scratch = opts.scratch or tempfile.mkdtemp(prefix='lit_examples_')
    results = []
    for name in opts.only or PROGRAMS:
        r = run_program(name, opts.examples, scratch)
        results.append(r)
        status = 'ok' if r['runs'] and r.get('compared') else ('runs; compare failed' if r['runs'] else 'FAILED')
        print(f"{name}: {status} ({r['seconds']} s)", file=sys.stderr)
        if status != 'ok': print((r.get('compare_error') or r['log'])[-1500:], file=sys.stderr)
    if opts.repeat > 1:
        add_timings(results, time_programs([r['program'] for r in results if r.get('compared')], opts.examples, scratch, opts.repeat, opts.threads))
    print(table(results))
    if opts.json: Path(opts.json).write_text(json.dumps(results, indent=1, default=str))


if __name__ == '__main__':
    main()
