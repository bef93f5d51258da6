"""The public API after the layout move: every name that was public is still importable from
the same path (the lists below are the ``__all__`` of each public module before the move;
new names may be added, none removed)."""

import importlib

import pytest

PUBLIC = {
    "exactdp": [
        "AlgebraicNumber", "EngineResult", "EpsilonSet", "ExactDPError", "FiniteMetric", "FloatEstimate",
        "Interval", "Mechanism", "PrivacyLevel", "RegularityResult", "ThresholdResult",
        "TightConstraintsResult", "database_leakage_bound", "epsilon_threshold", "is_optimal", "is_private",
        "is_regular", "leakage_bound", "metrics", "min_entropy_leakage", "parse_level", "privacy_level",
        "regular_epsilons", "solve_nonnegative", "tight_constraints", "tight_constraints_epsilons",
        "uniform_leakage_bound", "uniform_prior", "utility", "utility_bound", "validate_prior"],
    "exactdp.metrics": [
        "BUILTIN_METRICS", "FiniteMetric", "GridInfo", "count_queries", "cycle", "discrete", "from_graph",
        "from_matrix", "grid", "hamming", "line", "sum_query"],
    "exactdp.mechanisms": [
        "Mechanism", "MonomialForm", "RowNormalizedForm", "count_queries_geometric", "exponential_mechanism",
        "fmpq_to_float", "from_balls", "from_rows", "geometric_line", "planar_laplace_grid",
        "randomized_response", "sum_query_geometric", "tight_constraints_mechanism", "truncated_geometric"],
    "exactdp.threshold": [
        "CoverCertificate", "DEFAULT_TOL", "EpsilonInterval", "EpsilonSet", "ExactThresholdCertificate",
        "KroneckerThresholdCertificate", "Prop9Certificate", "ThresholdResult", "epsilon_threshold",
        "regular_epsilons", "tight_constraints_epsilons"],
    "exactdp.strategies": ["graph_metrics", "priors", "rational_t"],
    "exactdp.pufferfish": [
        "ConservativeScale", "DiscreteDistribution", "DistributionPair", "DistributionVsAbsent", "ExactScale",
        "Population", "PopulationCertificate", "TransportPlan", "User", "ValuePair", "ValueVsAbsent", "Verdict",
        "bernoulli", "binomial", "certify", "class_pair", "class_total", "class_vs_absent", "closed_forms",
        "conservative_scale", "convolve", "exact_scale", "parse_scale", "point_mass", "poisson_binomial",
        "sum_of", "transport_plan", "wasserstein_1", "wasserstein_inf"],
    "exactdp.sets": [
        "BOUNDS", "BoundInputs", "Box", "BoxUnion", "CapacityResult", "CertifiedCapacityResult",
        "CertifiedHausdorffResult", "CertifiedSetPrivacyResult", "DiameterResult", "ExpPoly", "HausdorffResult",
        "MonteCarloEstimate", "PointSet", "RealPointSet", "SetPrivacyResult", "ViolationSearch", "bound_factor",
        "box_probability", "candidate_boxes", "capacity_functional", "capacity_functional_certified",
        "capacity_monte_carlo_float", "check_set_privacy", "check_set_privacy_certified", "diameter",
        "distance", "exp_poly_sign", "find_violation", "find_violation_random", "hausdorff_distance",
        "hausdorff_distance_certified", "interval_probability", "is_translate", "laplace_cdf", "noise_density",
        "parse_norm", "point_set", "real_point_set", "region_diameter", "sample_mechanism_float",
        "sample_noise_float", "theorem1_counterexample", "union_probability"],
    "exactdp.reproduce": ["Fig4Row", "Fig6Row", "fig6_count_queries", "fig6_sum_query", "product_prior_regularity"],
    "exactdp.engine": ["EngineResult", "FloatEstimate", "METHODS", "Verdict", "float_solve", "solve_nonnegative"],
    "exactdp.linalg": ["FloatEnclosure", "VERIFIED_METHOD", "check_enclosure_arb", "float_enclosure",
                       "verified_solve"],
    "exactdp.errors": [
        "CertificateInvalid", "ExactDPError", "ExactnessRequired", "FallbackWarning", "InexactInputWarning",
        "InstanceTooLarge", "InvalidArgument", "InvalidBox", "InvalidDistribution", "InvalidMechanism",
        "InvalidMetric", "InvalidPrior", "InvalidPrivacyLevel", "InvalidScale", "InvalidSet", "InvalidTolerance",
        "NotRegular", "PrecisionLimitReached", "PropertyNeverHolds"],
    "exactdp.regularity": ["RegularityResult", "is_regular", "uniform_prior", "validate_prior"],
    "exactdp.tight": ["TightConstraintsResult", "tight_constraints"],
    "exactdp.cli": ["build_parser", "main"],
}


@pytest.mark.parametrize("module", sorted(PUBLIC))
def test_public_names_still_importable(module):
    mod = importlib.import_module(module)
    missing = [name for name in PUBLIC[module] if not hasattr(mod, name)]
    assert not missing, f"{module} lost public names: {missing}"
    assert set(PUBLIC[module]) <= set(getattr(mod, "__all__", PUBLIC[module])), module


def test_one_verdict_type_everywhere():
    from exactdp.kinds import Verdict

    assert importlib.import_module("exactdp.engine").Verdict is Verdict
    assert importlib.import_module("exactdp.pufferfish").Verdict is Verdict


def test_entry_point_and_python_m():
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "exactdp", "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and "usage: exactdp" in out.stdout
    from exactdp.cli import main

    assert callable(main)


def test_no_submodule_is_shadowed_by_a_public_name():
    """``import exactdp.x.y as m`` must give the module y, not a function the package exports."""
    import pkgutil

    import exactdp

    for info in pkgutil.walk_packages(exactdp.__path__, "exactdp."):
        parent, _, child = info.name.rpartition(".")
        if child == "__main__":
            continue
        pkg = importlib.import_module(parent)
        mod = importlib.import_module(info.name)
        assert getattr(pkg, child, mod) is mod, f"{parent}.{child} is shadowed by {getattr(pkg, child)!r}"
