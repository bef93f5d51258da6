"""Multi-user Pufferfish privacy with Laplace noise, exact and certified.

A user's contribution D to a sum query is a random variable (rational support,
rational probabilities), present with probability ζ. For a secret pair about one user
(or a whole class) this package computes the conservative Wasserstein scale W_∞/ε,
the exact least Laplace scale θ* (closed forms for Bernoulli pairs, certified root
finding otherwise), and certifies concrete populations.

θ* is for ONE release: k releases of the same sum at θ* lose L(θ*/k), far above k·ε
(:func:`release_loss`); ``exact_scale(pair, eps, releases=k)`` gives the least common θ
of k releases whose total loss is ≤ ε (``proofs/pufferfish_releases.py``).

Other noise: discrete Laplace, Gaussian (ε, δ), staircase (:func:`staircase_loss`, exact
piecewise ratios), Rényi divergences of integer order (:func:`laplace_renyi`,
:func:`discrete_laplace_renyi`); whole classes replaced by other classes at full size
(:func:`class_pair_scale`).

>>> from exactdp.pufferfish import bernoulli, DistributionPair, exact_scale, conservative_scale
>>> pair = DistributionPair(bernoulli("3/10"), bernoulli("1/10"))
>>> conservative_scale(pair, 1).theta
1
>>> r = exact_scale(pair, 1)
>>> r.theta_expr
1/log(-(-7 + 9*E)/(-3 + E))
>>> r.verify()
True
"""

from exactdp.kinds import Verdict
from exactdp.pufferfish.approximate import LaplaceDelta, laplace_delta
from exactdp.pufferfish.bernoulli_forms import closed_forms
from exactdp.pufferfish.calibration import (
    ConservativeScale,
    ExactScale,
    conservative_scale,
    exact_scale,
)
from exactdp.pufferfish.certification import PopulationCertificate, certify, parse_scale
from exactdp.pufferfish.class_laws import (
    ClassLaw,
    ClassScale,
    class_law,
    class_law_loss,
    class_vs_absent_scale,
)
from exactdp.pufferfish.class_pairs import (
    ClassPairConservative,
    ClassPairScale,
    class_pair_conservative,
    class_pair_loss,
    class_pair_scale,
    class_pair_winf,
)
from exactdp.pufferfish.conditions import (
    ConditionScale,
    relaxed_condition_holds,
    relaxed_condition_scale,
)
from exactdp.pufferfish.discrete import (
    DiscreteLaplaceScale,
    discrete_laplace_ratio,
    discrete_laplace_scale,
)
from exactdp.pufferfish.distributions import (
    DiscreteDistribution,
    bernoulli,
    binomial,
    convolve,
    point_mass,
    poisson_binomial,
    sum_of,
)
from exactdp.pufferfish.documents import from_document, to_document
from exactdp.pufferfish.gaussian import GaussianDelta, GaussianScale, gaussian_delta, gaussian_scale
from exactdp.pufferfish.population import Population, User
from exactdp.pufferfish.releases import ReleaseLoss, effective_scale, release_loss
from exactdp.pufferfish.renyi import (
    DiscreteRenyi,
    RenyiDivergence,
    discrete_laplace_renyi,
    laplace_renyi,
)
from exactdp.pufferfish.secrets import (
    DistributionPair,
    DistributionVsAbsent,
    ValuePair,
    ValueVsAbsent,
    class_pair,
    class_total,
    class_vs_absent,
)
from exactdp.pufferfish.staircase import Staircase, StaircaseLoss, staircase_loss
from exactdp.pufferfish.transport import (
    TransportPlan,
    transport_plan,
    wasserstein_1,
    wasserstein_inf,
)

__all__ = [
    "to_document",
    "from_document",
    "DiscreteDistribution",
    "bernoulli",
    "binomial",
    "convolve",
    "point_mass",
    "poisson_binomial",
    "sum_of",
    "TransportPlan",
    "transport_plan",
    "wasserstein_1",
    "wasserstein_inf",
    "ValuePair",
    "ValueVsAbsent",
    "DistributionVsAbsent",
    "DistributionPair",
    "class_total",
    "class_vs_absent",
    "class_pair",
    "ConservativeScale",
    "ExactScale",
    "conservative_scale",
    "exact_scale",
    "closed_forms",
    "Verdict",
    "Population",
    "User",
    "PopulationCertificate",
    "certify",
    "parse_scale",
    "ReleaseLoss",
    "release_loss",
    "effective_scale",
    "ClassLaw",
    "ClassScale",
    "class_law",
    "class_law_loss",
    "class_vs_absent_scale",
    "DiscreteLaplaceScale",
    "discrete_laplace_ratio",
    "discrete_laplace_scale",
    "ConditionScale",
    "relaxed_condition_scale",
    "relaxed_condition_holds",
    "GaussianDelta",
    "GaussianScale",
    "gaussian_delta",
    "gaussian_scale",
    "LaplaceDelta",
    "laplace_delta",
    "ClassPairScale",
    "ClassPairConservative",
    "class_pair_scale",
    "class_pair_loss",
    "class_pair_winf",
    "class_pair_conservative",
    "RenyiDivergence",
    "DiscreteRenyi",
    "laplace_renyi",
    "discrete_laplace_renyi",
    "Staircase",
    "StaircaseLoss",
    "staircase_loss",
]
