"""crosscheck and exactdp.batch on executors: identical reports whatever the executor, failed
tasks reported per case, and a dask.distributed LocalCluster with 2 workers."""

from __future__ import annotations

from concurrent.futures import Executor, Future, ThreadPoolExecutor
from fractions import Fraction
from typing import Any

import pytest

from exactdp.batch import pufferfish_over_classes, regularity_over_priors, thresholds_over_metrics
from exactdp.spaces.metrics import cycle, discrete, line
from exactdp.testing import crosscheck, draw_cases
from exactdp.testing.case_strategies import cases_for
from exactdp.testing.float_reference import tight_z_float

CASES = draw_cases(cases_for("tight-constraints", max_points=5), 24)


class _FlakyExecutor(Executor):
    """Runs tasks in-process, but every task whose arguments mention case index 3 fails."""

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        fut: Future[Any] = Future()
        items = args[2] if len(args) > 2 and isinstance(args[2], list) else []
        if any(i == 3 for i, _ in items):
            fut.set_exception(RuntimeError("worker lost"))
        else:
            fut.set_result(fn(*args, **kwargs))
        return fut


def test_threads_give_the_same_report_as_in_process() -> None:
    ref = crosscheck(tight_z_float, "tight-constraints", CASES)
    with ThreadPoolExecutor(2) as ex:
        other = crosscheck(tight_z_float, "tight-constraints", CASES, executor=ex, chunksize=5)
    assert other == ref and other.to_json() == ref.to_json()
    assert [r.index for r in other.results] == list(range(len(CASES)))


def test_a_failed_task_is_reported_per_case_never_dropped() -> None:
    rep = crosscheck(tight_z_float, "tight-constraints", CASES[:8], executor=_FlakyExecutor(), chunksize=4)
    assert len(rep.results) == 8
    bad = [r for r in rep.results if r.outcome == "error"]
    assert [r.index for r in bad] == [3] and "worker lost" in bad[0].message
    assert rep.counts["error"] == 1 and not rep.ok
    assert all(r.outcome != "error" for r in rep.results if r.index != 3)


def test_batch_in_process_and_on_threads_agree_and_report_bad_items() -> None:
    metrics = [line(3), cycle(4), discrete(3)]
    a = thresholds_over_metrics(metrics)
    with ThreadPoolExecutor(2) as ex:
        b = thresholds_over_metrics(metrics, executor=ex)
        pri = regularity_over_priors(line(3), [["1/3"] * 3, [1, 0, 0], ["1/2", "1/2"]], t="1/2", executor=ex)
    assert [(x.result.eps_lower, x.result.eps_upper) for x in a.items] == \
        [(x.result.eps_lower, x.result.eps_upper) for x in b.items]
    assert [i.ok for i in pri.items] == [True, True, False] and "prior" in (pri.items[2].error or "").lower()
    cls = pufferfish_over_classes({"a": (3, "1/2")}, 1, executor=ThreadPoolExecutor(1))
    assert cls.items[0].result.verify()


def test_dask_localcluster_gives_identical_reports() -> None:
    distributed = pytest.importorskip(
        "distributed", reason="dask.distributed is not installed (pip install 'dask[distributed]', "
                              "the optional 'distributed' extra)")
    ref = crosscheck(tight_z_float, "tight-constraints", CASES)
    ref_b = thresholds_over_metrics([line(3), cycle(4)], "uniform")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster, distributed.Client(cluster) as client:
        ex = client.get_executor()
        rep = crosscheck(tight_z_float, "tight-constraints", CASES, executor=ex, chunksize=6)
        b = thresholds_over_metrics([line(3), cycle(4)], "uniform", executor=ex)
    assert rep == ref
    assert [x.result.eps_upper for x in b.items] == [x.result.eps_upper for x in ref_b.items]
    assert Fraction(0) <= b.items[1].result.eps_lower


def test_process_pool_gives_the_same_report_and_reports_an_unpicklable_fn() -> None:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    ref = crosscheck(tight_z_float, "tight-constraints", CASES[:6])
    # spawn, not fork: the test process has threads (pytest-xdist's, dask's from the test above),
    # and a fork while another thread holds a lock can deadlock the child for ever.
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as ex:
        rep = crosscheck(tight_z_float, "tight-constraints", CASES[:6], executor=ex, chunksize=3)
        bad = crosscheck(lambda D, e: tight_z_float(D, e), "tight-constraints", CASES[:2], executor=ex,
                         retries=0)
    assert rep == ref
    assert [r.outcome for r in bad.results] == ["error", "error"]
    assert all("pickle" in r.message.lower() for r in bad.results)
