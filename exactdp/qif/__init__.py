"""Quantitative information flow, exactly: g-leakage, capacities, refinement, optimal mechanisms.

Channels are row-stochastic matrices, rows = secrets (libqif's convention), given as exact
:class:`~exactdp.mechanisms.mechanism.Mechanism`, nested lists of exact numbers or numpy
arrays (floats read at their exact binary value). Answers are exact rationals where the
inputs are rational, certified enclosures for logarithms and entropies, never floats.

Modules (machinery; the public names are re-exported here):

* :mod:`~exactdp.qif.channel` — reading channels and priors, exact products;
* :mod:`~exactdp.qif.gain` — :class:`GainFunction` (identity, distance gain/loss, k tries);
* :mod:`~exactdp.qif.measures` — g-vulnerability, additive/multiplicative g-leakage, Bayes
  risk, guessing entropy;
* :mod:`~exactdp.qif.entropy` — Shannon entropy and mutual information (certified);
* :mod:`~exactdp.qif.shannon` — Shannon capacity (Blahut–Arimoto finds, balls certify);
* :mod:`~exactdp.qif.capacity` — Bayes capacities (multiplicative, additive) and g-capacities;
* :mod:`~exactdp.qif.compose` — cascade, parallel composition, post-processing, refinement;
* :mod:`~exactdp.qif.optimal_lp`, :mod:`~exactdp.qif.optimal` — the optimal d-private
  mechanism by LP (float to find, exact to prove) with an LP-duality certificate;
* :mod:`~exactdp.qif.distances` — total variation, multiplicative TV, Kantorovich.
* :mod:`~exactdp.qif.documents` — the kernel documents of the exact results (``to_document()``;
  ``verify()`` is the verdict of :mod:`exactdp.kernel.qif`, as ``exactdp verify FILE.json``).

Examples
--------
>>> from exactdp.qif import GainFunction, multiplicative_bayes_capacity, optimal_mechanism
>>> multiplicative_bayes_capacity([["3/4", "1/4"], ["1/4", "3/4"]]).value
Fraction(3, 2)
"""

from exactdp.qif.capacity import (
    Capacity,
    additive_bayes_capacity,
    g_capacity,
    multiplicative_bayes_capacity,
)
from exactdp.qif.channel import read_channel
from exactdp.qif.compose import Refinement, cascade, is_refined_by, parallel, post_process
from exactdp.qif.distances import (
    Kantorovich,
    MultiplicativeTV,
    kantorovich,
    multiplicative_total_variation,
    total_variation,
)
from exactdp.qif.entropy import (
    CertifiedQuantity,
    conditional_entropy,
    mutual_information,
    shannon_entropy,
)
from exactdp.qif.gain import GainFunction
from exactdp.qif.measures import (
    BayesRisk,
    GuessingEntropy,
    Leakage,
    Vulnerability,
    additive_leakage,
    bayes_risk,
    bayes_vulnerability,
    guessing_entropy,
    multiplicative_leakage,
    posterior_vulnerability,
    prior_vulnerability,
)
from exactdp.qif.optimal import OptimalMechanism, float_optimal_lp, optimal_mechanism
from exactdp.qif.optimal_lp import DualityCertificate, OptimalQuestion
from exactdp.qif.shannon import ShannonCapacity, shannon_capacity

__all__ = [
    "BayesRisk",
    "Capacity",
    "CertifiedQuantity",
    "DualityCertificate",
    "GainFunction",
    "GuessingEntropy",
    "Kantorovich",
    "Leakage",
    "MultiplicativeTV",
    "OptimalMechanism",
    "OptimalQuestion",
    "Refinement",
    "ShannonCapacity",
    "Vulnerability",
    "additive_bayes_capacity",
    "additive_leakage",
    "bayes_risk",
    "bayes_vulnerability",
    "cascade",
    "conditional_entropy",
    "float_optimal_lp",
    "g_capacity",
    "guessing_entropy",
    "is_refined_by",
    "kantorovich",
    "multiplicative_bayes_capacity",
    "multiplicative_leakage",
    "multiplicative_total_variation",
    "mutual_information",
    "optimal_mechanism",
    "parallel",
    "post_process",
    "posterior_vulnerability",
    "prior_vulnerability",
    "read_channel",
    "shannon_capacity",
    "shannon_entropy",
    "total_variation",
]
