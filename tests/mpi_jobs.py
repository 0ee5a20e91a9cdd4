"Running mpiexec jobs from tests, shared by the distributed test files."
import os, signal, subprocess

def run_job(cmd, timeout, env):
    "Run an mpiexec job in a session of its own: on a timeout the whole job is killed, ranks included (no orphan holds MPICH's file)."
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
    try: out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        raise AssertionError(f"the job did not end within {timeout} s:\n{out}{err}") from None
    return subprocess.CompletedProcess(cmd, p.returncode, out, err)
