"""Mechanisms: construction, privacy level, utility and leakage, the paper's bounds, optimality.

Modules (each a question or the machinery of one):

* :mod:`~exactdp.mechanisms.mechanism` — the :class:`Mechanism` type (exact or certified,
  :class:`MechanismKind`) and its exact structures (:class:`MonomialForm`,
  :class:`RowNormalizedForm`);
* :mod:`~exactdp.mechanisms.constructors` — :func:`from_rows`, :func:`from_balls` and the
  named mechanisms; :mod:`~exactdp.mechanisms.rectangular` — libqif's rectangular/offset
  :func:`geometric_rectangular` and :func:`exponential_rectangular`;
* :mod:`~exactdp.mechanisms.structure` — :class:`TightForm`, :class:`MergedMonomialForm`: the
  exact structure that keeps a built mechanism's level exact at its own boundary (routes in
  :mod:`~exactdp.mechanisms.privacy_structured`); :mod:`~exactdp.mechanisms.coerce` — what
  "a mechanism" argument accepts (a tight-constraints result, a loaded file);
* :mod:`~exactdp.mechanisms.files` — the mechanism you deploy, read exactly:
  :func:`from_numpy`, :func:`from_csv`, :func:`from_npy`, :func:`from_json` (floats as their
  exact binary values; rows that miss 1 under an explicit policy), :func:`to_csv`;
* :mod:`~exactdp.mechanisms.privacy` — :func:`privacy_level` and :func:`is_private` (routes in
  :mod:`~exactdp.mechanisms.privacy_routes`, result and re-check in
  :mod:`~exactdp.mechanisms.privacy_result`, exact comparisons in
  :mod:`~exactdp.mechanisms.level_compare`, float pre-filters in
  :mod:`~exactdp.mechanisms.float_filter`);
* :mod:`~exactdp.mechanisms.gain` — :func:`utility` and :func:`min_entropy_leakage`;
* :mod:`~exactdp.mechanisms.bounds` — the paper's bounds (Thm. 2, Prop. 5, Cor. 2, Thm. 3);
* :mod:`~exactdp.mechanisms.optimality` — Thm. 4's exact optimality LP.
"""

from exactdp.arithmetic.rationals import fmpq_to_float
from exactdp.mechanisms.bounds import (
    database_leakage_bound,
    leakage_bound,
    uniform_leakage_bound,
    utility_bound,
)
from exactdp.mechanisms.constructors import (
    count_queries_geometric,
    exponential_mechanism,
    from_balls,
    from_rows,
    geometric_line,
    mechanism_from_tight,
    planar_laplace_grid,
    randomized_response,
    sum_query_geometric,
    tight_constraints_mechanism,
    truncated_geometric,
)
from exactdp.mechanisms.files import (
    LoadedMechanism,
    RowSumReport,
    from_csv,
    from_json,
    from_npy,
    from_numpy,
    load_mechanism,
    to_csv,
)
from exactdp.mechanisms.gain import (
    LeakageResult,
    UtilityResult,
    min_entropy_leakage,
    utility,
)
from exactdp.mechanisms.mechanism import (
    Mechanism,
    MechanismKind,
    MonomialForm,
    RowNormalizedForm,
)
from exactdp.mechanisms.optimality import is_optimal
from exactdp.mechanisms.privacy import PrivacyCheck, PrivacyLevelResult, is_private, privacy_level
from exactdp.mechanisms.rectangular import exponential_rectangular, geometric_rectangular
from exactdp.mechanisms.structure import MergedMonomialForm, TightForm

__all__ = [
    "Mechanism",
    "MechanismKind",
    "MonomialForm",
    "RowNormalizedForm",
    "from_rows",
    "from_balls",
    "from_numpy",
    "from_csv",
    "from_npy",
    "from_json",
    "load_mechanism",
    "to_csv",
    "LoadedMechanism",
    "RowSumReport",
    "truncated_geometric",
    "geometric_line",
    "sum_query_geometric",
    "count_queries_geometric",
    "randomized_response",
    "exponential_mechanism",
    "tight_constraints_mechanism",
    "planar_laplace_grid",
    "geometric_rectangular",
    "exponential_rectangular",
    "mechanism_from_tight",
    "TightForm",
    "MergedMonomialForm",
    "fmpq_to_float",
    "PrivacyLevelResult",
    "PrivacyCheck",
    "privacy_level",
    "is_private",
    "UtilityResult",
    "LeakageResult",
    "utility",
    "min_entropy_leakage",
    "utility_bound",
    "leakage_bound",
    "uniform_leakage_bound",
    "database_leakage_bound",
    "is_optimal",
]
