"""Answer many questions at once, in-process or on any ``concurrent.futures.Executor``.

* :func:`thresholds_over_metrics` — ε* of tight constraints (or of one prior's regularity)
  for many metrics (:func:`exactdp.threshold.epsilon_threshold` each);
* :func:`regularity_over_priors` — the regularity verdict of many priors on one metric at one
  level (:func:`exactdp.regularity.is_regular` each);
* :func:`pufferfish_over_classes` — the least Laplace scale θ* of every class of a population,
  the whole class present vs absent (:func:`exactdp.pufferfish.class_vs_absent_scale` each).

``executor=`` takes any :class:`concurrent.futures.Executor`: a thread or process pool, or a
cluster's, e.g. ``dask.distributed.Client("tcp://scheduler:8786").get_executor()`` (the
optional ``distributed`` extra); nothing else changes. Items come back in input order with
the same answers whatever the executor (only wall-clock fields inside results differ). A task
that fails on the executor (worker lost, pickling, ...) is retried ``retries`` (≥ 0) times,
then reported in its :class:`BatchItem` (``error``, side ``executor``), never dropped. An item
on which exactdp refuses or fails (a prior that is not a probability vector: side
``exactdp-refused``; any other exception: side ``exactdp-raised``) is reported the same way,
identically in-process and on every executor, and never retried (it is deterministic). Inputs
of the wrong type (a metric that is not a ``FiniteMetric``, a class whose members are not a
sequence) raise the specific error before anything runs.

>>> from exactdp.spaces.metrics import line, cycle
>>> b = thresholds_over_metrics([line(3), cycle(4)])
>>> [item.ok for item in b.items], b.failures
([True, True], ())
>>> b.items[1].result.eps_lower <= b.items[1].result.eps_upper
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Executor, Future
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from exactdp.errors import ExactDPError, InvalidArgument, InvalidMetric
from exactdp.pufferfish import class_vs_absent_scale
from exactdp.regularity import is_regular
from exactdp.spaces.metrics import FiniteMetric
from exactdp.threshold import epsilon_threshold
from exactdp.threshold.results import DEFAULT_TOL

__all__ = ["BatchItem", "BatchResult", "thresholds_over_metrics", "regularity_over_priors",
           "pufferfish_over_classes"]


@dataclass(frozen=True)
class BatchItem:
    """One answer of a batch: ``result`` (exactdp's result object) or ``error`` (why not), and
    ``side``: who failed ("exactdp-refused", "exactdp-raised", "executor"; "" when ok)."""

    index: int
    label: str
    result: Any
    error: str | None = None
    side: str = ""

    @property
    def ok(self) -> bool:
        """True when the item has a result."""
        return self.error is None


@dataclass(frozen=True)
class BatchResult:
    """The items of a batch, in input order."""

    question: str
    items: tuple[BatchItem, ...]

    @property
    def failures(self) -> tuple[BatchItem, ...]:
        """Items without a result (each with its ``error``)."""
        return tuple(i for i in self.items if not i.ok)

    def results(self) -> list[Any]:
        """The result objects (None where an item failed)."""
        return [i.result for i in self.items]


def _one(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
         ) -> tuple[Any, str | None, str]:
    try:
        return fn(*args, **kwargs), None, ""
    except ExactDPError as err:  # exactdp refused or could not answer: reported per item
        return None, f"{type(err).__name__}: {err}", "exactdp-refused"
    except Exception as err:  # anything else exactdp raised: reported per item, never retried
        return None, f"exactdp raised {type(err).__name__}: {err}", "exactdp-raised"


def _map(question: str, fn: Callable[..., Any], calls: Sequence[tuple[str, tuple[Any, ...], dict[str, Any]]],
         executor: Executor | None, retries: int) -> BatchResult:
    if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
        raise InvalidArgument(f"Got retries={retries!r}; pass a whole number ≥ 0.")
    if executor is None:
        outs = [_one(fn, a, k) for _, a, k in calls]
    else:
        futures = [_submit(executor, fn, a, k) for _, a, k in calls]
        outs = []
        for (_label, a, k), fut in zip(calls, futures):
            out: tuple[Any, str | None, str] | None = None
            last = ""
            for attempt in range(retries + 1):
                try:
                    out = fut.result() if attempt == 0 else executor.submit(_one, fn, a, k).result()
                    break
                except Exception as err:  # the task itself failed (worker lost, pickling, ...)
                    last = f"task failed on the executor after {attempt + 1} attempt(s): {type(err).__name__}: {err}"
            outs.append(out if out is not None else (None, last, "executor"))
    items = tuple(BatchItem(i, label, res, err, side)
                  for i, ((label, _, _), (res, err, side)) in enumerate(zip(calls, outs)))
    return BatchResult(question, items)


def _submit(executor: Executor, fn: Callable[..., Any], a: tuple[Any, ...], k: dict[str, Any]) -> Future[Any]:
    try:
        return executor.submit(_one, fn, a, k)
    except Exception as err:  # submit itself failed (shut-down or broken pool): reported per item
        fut: Future[Any] = Future()
        fut.set_exception(err)
        return fut


def thresholds_over_metrics(metrics: Iterable[Any], prior: Any = None, *, tol: Any = DEFAULT_TOL,
                            executor: Executor | None = None, retries: int = 1) -> BatchResult:
    """:func:`~exactdp.threshold.epsilon_threshold` of every metric (``prior`` as there,
    the same for every metric, e.g. ``"uniform"``).

    >>> from exactdp.spaces.metrics import discrete
    >>> b = thresholds_over_metrics([discrete(3), discrete(4)], "uniform")
    >>> [item.label for item in b.items]
    ['discrete(3, 1)', 'discrete(4, 1)']
    """
    metrics = list(metrics)
    for k, m in enumerate(metrics):
        if not isinstance(m, FiniteMetric):
            raise InvalidMetric(f"Got metrics[{k}] = {m!r:.60} ({type(m).__name__}); pass FiniteMetric objects "
                                "(exactdp.spaces.metrics: line, grid, from_matrix(...)).")
    calls = [(m.name, (m, prior), {"tol": tol}) for m in metrics]
    return _map("threshold", epsilon_threshold, calls, executor, retries)


def regularity_over_priors(metric: Any, priors: Iterable[Any], eps: Any = None, t: Any = None, *,
                           executor: Executor | None = None, retries: int = 1) -> BatchResult:
    """:func:`~exactdp.regularity.is_regular` of every prior at one level (certified).

    >>> from exactdp.spaces.metrics import line
    >>> b = regularity_over_priors(line(3), [["1/3"] * 3, [1, 0, 0]], t="1/2")
    >>> [item.result.verdict.value for item in b.items]
    ['holds', 'fails']
    """
    calls = [(f"prior {k}", (metric, p), {"eps": eps, "t": t}) for k, p in enumerate(priors)]
    return _map("regularity", is_regular, calls, executor, retries)


def pufferfish_over_classes(classes: Mapping[str, Any], eps: Any, *, tol: Any = Fraction(1, 10**12),
                            executor: Executor | None = None, retries: int = 1) -> BatchResult:
    """θ* of every class (``name -> members``, members as for
    :func:`~exactdp.pufferfish.class_vs_absent_scale`: a list of p_i or ``(n, p)``).

    >>> b = pufferfish_over_classes({"a": (3, "1/2"), "b": ["1/10", "1/5"]}, 1)
    >>> [(i.label, i.result.verify()) for i in b.items]
    [('a', True), ('b', True)]
    """
    if not isinstance(classes, Mapping):
        raise InvalidArgument(f"Got classes={classes!r:.60}; pass a mapping name -> members.")
    for name, members in classes.items():
        if isinstance(members, (str, bytes)) or not isinstance(members, (Sequence, tuple)):
            raise InvalidArgument(f"Got members {members!r:.60} for class {name!r}; pass a list of "
                                  "probabilities p_i or a pair (n, p).")
    calls = [(str(name), (members, eps), {"tol": tol}) for name, members in classes.items()]
    return _map("pufferfish-class", class_vs_absent_scale, calls, executor, retries)
