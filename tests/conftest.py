"""Suite-wide settings.

* Hypothesis is **derandomized** by default (profile ``ci``): every run — here, on CI, on a
  user's machine — draws the same examples, so a run that passed once cannot hang or fail on
  CI for an input nobody has seen. Exploring new inputs is a deliberate act:
  ``python -m pytest --hypothesis-profile=explore --hypothesis-seed=N`` (the CI-time hunt of
  session 13 ran it over several seeds with ``--timeout``).
* Every test has a time limit (``timeout`` in ``pyproject.toml``, pytest-timeout), so a test
  that hangs fails with its traceback instead of stalling the whole run.
* mpmath's and flint's global precisions are restored after every test.
* ``-n auto`` starts one worker per CPU this process may use (see
  :func:`pytest_xdist_auto_num_workers`), not one per core of the host.
"""

import math
import os
from pathlib import Path

import flint
import mpmath
import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None, deadline=None,
                          print_blob=True)
settings.register_profile("explore", derandomize=False, database=None, deadline=None,
                          print_blob=True)
settings.load_profile("ci")


@pytest.fixture(autouse=True)
def _restore_global_precision():
    """A test that sets mpmath's or flint's global precision does not leak it into the next
    test (under xdist which tests share a worker varies, so a leak made verdicts of a strict
    oracle depend on the schedule)."""
    mp_prec, flint_prec = mpmath.mp.prec, flint.ctx.prec
    yield
    mpmath.mp.prec, flint.ctx.prec = mp_prec, flint_prec


def _cgroup_cpus() -> float | None:
    """CPUs granted by a cgroup quota (v2 ``cpu.max``, v1 ``cfs_quota_us``), or None."""
    for quota_file, period_file in (("/sys/fs/cgroup/cpu.max", None),
                                    ("/sys/fs/cgroup/cpu/cpu.cfs_quota_us",
                                     "/sys/fs/cgroup/cpu/cpu.cfs_period_us")):
        try:
            text = Path(quota_file).read_text().split()
            if period_file is None:
                quota, period = text[0], text[1]
            else:
                quota, period = text[0], Path(period_file).read_text().split()[0]
        except (OSError, IndexError):
            continue
        if quota not in ("max", "-1") and int(period) > 0:
            return int(quota) / int(period)
    return None


def _available_gib() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) / 2**20
    except (OSError, ValueError, IndexError):
        pass
    return None


def pytest_xdist_auto_num_workers(config):
    """``-n auto``: the CPUs this process may really use, not the host's count.

    pytest-xdist asks psutil, which reports the host's cores even when a container grants two
    (a cgroup quota or a CPU set), and then starts a worker per host core. Here: the CPU set,
    capped by the cgroup quota and by 3 GiB of available memory per worker (the suite's largest
    test peaks near 2 GB); ``PYTEST_XDIST_AUTO_NUM_WORKERS`` still overrides.
    """
    env = os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS")
    if env:
        return int(env)
    caps = [len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1]
    quota = _cgroup_cpus()
    if quota is not None:
        caps.append(math.ceil(quota))
    gib = _available_gib()
    if gib is not None:
        caps.append(int(gib // 3))
    return max(1, min(caps))
