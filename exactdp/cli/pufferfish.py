"""``exactdp pufferfish …``: Laplace scales for multi-user Pufferfish privacy.

Subcommands (human output by default, exact JSON with ``--json``):

- ``scale``: conservative and exact θ for one secret pair
  (``--p P [--q Q]`` Bernoulli, ``--absent`` for S_{P,⊥}; ``--values A B``;
  ``--dist "0:1/2,2:1/2" [--dist2 …]`` for general finite laws); ``--releases K``: the least
  common θ of K releases of the same sum with TOTAL loss ≤ ε (K·θ*); ``--noise
  discrete-laplace``: the least two-sided geometric parameter α* (integer data);
  ``--noise gaussian --delta D``: the least σ for (ε, δ) (certified bracket);
- ``staircase``: the exact loss of staircase noise (``--sensitivity Δ --eps0 ε₀ --gamma γ``)
  for a pair, with the verdict at ``--eps`` (no least parameter: the loss is not monotone
  in Δ);
- ``renyi``: Rényi divergence of integer ``--order`` for Laplace ``--theta`` (certified) or
  ``--noise discrete-laplace --alpha a`` (exact);
- ``class-pair``: a whole class replaced by another (``--a N:P --b N:P``), certified θ*;
- ``closed-forms``: the sympy expressions of the Bernoulli cases;
- ``certify``: a concrete population of Bernoulli users (``--others``, ``--presence``);
- ``adult``: conservative vs exact θ on the UCI Adult classes (progress on stderr;
  ``--quiet`` silences it).

``certify`` exits with its verdict's code (0 private, 1 not private); the others compute
values and exit 0 (see :mod:`exactdp.cli.exitcodes`).
"""

from __future__ import annotations

import argparse
import json
from fractions import Fraction as F
from typing import Any

import sympy

from exactdp.cli.common import accept_negative_numbers
from exactdp.cli.exitcodes import ExitCode, HandlerResult, checked_verdict
from exactdp.errors import InvalidArgument
from exactdp.progress import stderr_progress
from exactdp.pufferfish.adult import (
    DEFAULT_EPSILONS,
    adult_rows,
    markdown_table,
    wide_markdown_table,
)
from exactdp.pufferfish.bernoulli_forms import closed_forms
from exactdp.pufferfish.calibration import conservative_scale, exact_scale
from exactdp.pufferfish.certification import certify
from exactdp.pufferfish.class_pairs import class_pair_scale
from exactdp.pufferfish.discrete import discrete_laplace_scale
from exactdp.pufferfish.distributions import DiscreteDistribution, bernoulli
from exactdp.pufferfish.gaussian import gaussian_scale
from exactdp.pufferfish.population import Population
from exactdp.pufferfish.renyi import discrete_laplace_renyi, laplace_renyi
from exactdp.pufferfish.secrets import (
    DistributionPair,
    DistributionVsAbsent,
    SecretPair,
    ValuePair,
    ValueVsAbsent,
)
from exactdp.pufferfish.staircase import staircase_loss

__all__ = ["register"]


def _parse_dist(text: str) -> DiscreteDistribution:
    pairs = [item.split(":") for item in text.split(",") if item.strip()]
    if not pairs or any(len(pair) != 2 for pair in pairs):
        raise InvalidArgument(
            f"Got --dist {text!r}; write value:probability pairs, e.g. '0:1/2,2:1/2'."
        )
    try:
        return DiscreteDistribution.from_pairs((v.strip(), p.strip()) for v, p in pairs)
    except InvalidArgument as exc:  # bad number, probability outside [0, 1], sum ≠ 1: say which
        raise type(exc)(f"Got --dist {text!r}: {exc}") from exc


def _pair_from_args(args: argparse.Namespace) -> SecretPair:
    if args.values is not None:
        a, b = args.values
        return ValueVsAbsent(a) if b in ("absent", "⊥") else ValuePair(a, b)
    if args.dist is not None:
        P = _parse_dist(args.dist)
        if args.dist2 is None:
            return DistributionVsAbsent(P)
        return DistributionPair(P, _parse_dist(args.dist2))
    if args.p is not None:
        if args.q is None:
            return DistributionVsAbsent(bernoulli(args.p))
        return DistributionPair(bernoulli(args.p), bernoulli(args.q))
    raise InvalidArgument(
        "Give the secret pair: --p P [--q Q], --values A B (B may be 'absent'), "
        "or --dist 'v:p,…' [--dist2 'v:p,…']."
    )


def _add_pair_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--p", help="Bernoulli P(D = 1) under the first secret")
    parser.add_argument("--q", help="Bernoulli P(D = 1) under the second (omit: absent)")
    parser.add_argument("--values", nargs=2, metavar=("A", "B"),
                        help="fixed values a, b (b = 'absent' for S_{a,⊥})")
    parser.add_argument("--dist", help="first law as 'v:p,v:p,…' (omit --dist2: absent)")
    parser.add_argument("--dist2", help="second law as 'v:p,v:p,…'")
    parser.add_argument("--json", action="store_true", help="exact JSON output")


def _scale(args: argparse.Namespace) -> HandlerResult:
    pair = _pair_from_args(args)
    if args.noise != "laplace" and args.releases != 1:
        raise InvalidArgument(
            f"Got --releases {args.releases} with --noise {args.noise}; repeated releases "
            f"are supported for --noise laplace only."
        )
    if (args.sympy or args.latex) and args.noise != "laplace":
        raise InvalidArgument(f"Got --{'latex' if args.latex else 'sympy'} with --noise "
                              f"{args.noise}; closed forms are printed for --noise laplace only "
                              f"(drop --{'latex' if args.latex else 'sympy'}).")
    if args.noise == "discrete-laplace":
        return _discrete(args, pair)
    if args.noise == "gaussian":
        return _gaussian(args, pair)
    if args.delta is not None:
        raise InvalidArgument("Got --delta with Laplace noise; --delta needs --noise gaussian.")
    k = args.releases
    cons = conservative_scale(pair, args.eps, releases=k)
    ex = exact_scale(pair, args.eps, tol=args.tol, releases=k)
    ok = cons.verify() and ex.verify()
    if args.sympy or args.latex:
        return _closed_form(ex, ok, args)
    if args.json:
        print(json.dumps({
            "pair": pair.describe(),
            "eps": str(cons.eps),
            "noise": "laplace",
            "releases": k,
            "conservative_theta": str(cons.theta),
            "w_inf": str(cons.winf),
            "w_1": str(cons.w1),
            "exact": ex.to_json(),
            "verified": ok,
        }, indent=2))
        return ExitCode.OK if ok else ExitCode.INTERNAL_ERROR
    print(f"pair: {pair.describe()}   ε = {cons.eps}" + (
        f" (TOTAL over {k} releases of the same sum)" if k > 1 else ""))
    print(f"conservative θ = {f'{k}·' if k > 1 else ''}W∞/ε = {cons.theta}   "
          f"(W∞ = {cons.winf}, W1 = {cons.w1})")
    if ex.zero_noise:
        why = "P = Q" if ex.identical else "the pmf ratio already lies in [e^-ε, e^ε]"
        print(f"exact θ* = 0: no noise is needed ({why}); every θ > 0 is private")
    else:
        # with K > 1 the result is the common θ of K releases, K·θ*(ε), not θ* itself
        name = "θ*" if k == 1 else f"{k}·θ*"
        if ex.theta_expr is not None:
            print(f"exact θ* = {ex.theta_expr}" if k == 1 else
                  f"exact common θ of {k} releases = {k}·θ*(ε) = {ex.theta_expr}")
        print(f"certified: {ex.lo} < {name} ≤ {ex.hi}  (≈ {ex.float():.15g}; {ex.method}, "
              f"{ex.prec} bits)")
        if k == 1:
            print("warning: θ* is for ONE release; K releases at θ* lose L(θ*/K), far more "
                  "than K·ε — use --releases K")
    print(f"verified independently: {ok}")
    return ExitCode.OK if ok else ExitCode.INTERNAL_ERROR


def _closed_form(ex: Any, ok: bool, args: argparse.Namespace) -> HandlerResult:
    """``--sympy`` / ``--latex``: the exact θ* alone (exit 3 when it has no closed form)."""
    expr = sympy.Integer(0) if ex.zero_noise else ex.theta_expr
    if expr is None:
        raise InvalidArgument("θ* has no closed form for this pair (it was found by certified "
                              f"root finding: {ex.lo} < θ* ≤ {ex.hi}); drop --sympy/--latex.")
    text = sympy.latex(expr) if args.latex else sympy.sstr(expr)
    if args.json:
        print(json.dumps({"theta": text, "form": "latex" if args.latex else "sympy",
                          "verified": ok}))
    else:
        print(text)
    return ExitCode.OK if ok else ExitCode.INTERNAL_ERROR


def _discrete(args: argparse.Namespace, pair: SecretPair) -> HandlerResult:
    r = discrete_laplace_scale(pair, args.eps, tol=args.tol)
    ok = r.verify()
    if args.json:
        print(json.dumps({
            "pair": pair.describe(), "eps": str(r.eps), "noise": "discrete-laplace",
            "zero_noise": r.zero_noise, "alpha_lo": str(r.alpha_lo), "alpha_hi": str(r.alpha_hi),
            "alpha_expr": None if r.alpha_expr is None else str(r.alpha_expr),
            "ratio_lo": str(r.ratio_lo), "ratio_hi": str(r.ratio_hi), "verified": ok,
        }, indent=2))
        return ExitCode.OK if ok else ExitCode.INTERNAL_ERROR
    print(f"pair: {pair.describe()}   ε = {r.eps}   noise: discrete Laplace, P(Z = z) ∝ α^|z|")
    if r.zero_noise:
        print("α* = 0: no noise is needed")
    else:
        if r.alpha_expr is not None:
            print(f"exact α* = {r.alpha_expr}")
        print(f"certified: {r.alpha_lo} < α* ≤ {r.alpha_hi}  (≈ {float(r.alpha_hi):.15g}; the "
              f"exact rational ratio exceeds e^ε at α_lo and is ≤ e^ε at α_hi)")
    print(f"verified independently: {ok}")
    return ExitCode.OK if ok else ExitCode.INTERNAL_ERROR


def _gaussian(args: argparse.Namespace, pair: SecretPair) -> HandlerResult:
    if args.delta is None:
        raise InvalidArgument("Got --noise gaussian without --delta; pass e.g. --delta 1/100000.")
    r = gaussian_scale(pair, args.eps, args.delta)
    ok = r.verify()
    if args.json:
        print(json.dumps({
            "pair": pair.describe(), "eps": str(r.eps), "delta": str(r.target_delta),
            "noise": "gaussian", "sigma_lo": str(r.lo), "sigma_hi": str(r.hi),
            "delta_at_lo": [str(r.at_lo.delta.lo), str(r.at_lo.delta.hi)],
            "delta_at_hi": [str(r.at_hi.delta.lo), str(r.at_hi.delta.hi)], "verified": ok,
        }, indent=2))
        return ExitCode.OK if ok else ExitCode.INTERNAL_ERROR
    print(f"pair: {pair.describe()}   ε = {r.eps}, δ = {r.target_delta}   noise: N(0, σ²)")
    print(f"certified: {float(r.lo):.12g} < σ* ≤ {float(r.hi):.12g}  (δ(σ_lo) ∈ "
          f"[{float(r.at_lo.delta.lo):.12g}, {float(r.at_lo.delta.hi):.12g}] > δ ≥ δ(σ_hi))")
    print(f"verified independently: {ok}")
    return ExitCode.OK if ok else ExitCode.INTERNAL_ERROR


def _closed(args: argparse.Namespace) -> HandlerResult:
    forms = closed_forms()
    if args.json:
        print(json.dumps({k: str(v) for k, v in forms.items()}, indent=2))
    else:
        for k, v in forms.items():
            print(f"{k} = {v}")
    return ExitCode.OK


def _split(text: str | None) -> list[str]:
    return [] if text is None else [t.strip() for t in text.split(",") if t.strip()]


def _certify(args: argparse.Namespace) -> HandlerResult:
    pair = _pair_from_args(args)
    ps = _split(args.others)
    zs = _split(args.presence) or ["1"] * len(ps)
    c = certify(Population.bernoulli(ps, zs), pair, args.theta, args.eps, tol=args.tol)
    ok = c.verify()
    if args.json:
        out: dict[str, Any] = c.to_json()
        out["verified"] = ok
        print(json.dumps(out, indent=2))
        return checked_verdict(c.verdict, ok)
    print(f"verdict at θ = {c.theta}, ε = {c.eps}: {'private' if c.private else 'NOT private'}"
          + (" (tight: the loss equals ε exactly)" if c.tight else ""))
    print(f"worst output y = {c.worst_output}: ln f(y|s) − ln f(y|s') ∈ {c.worst_log_ratio}")
    if c.population_theta is not None and c.independent_theta is not None:
        pt, it = c.population_theta, c.independent_theta
        print(f"least θ for this population:  {float(pt.lo):.12g} … {float(pt.hi):.12g}")
        print(f"least θ for every population: {float(it.lo):.12g} … {float(it.hi):.12g}")
    print(f"verified independently: {ok}")
    return checked_verdict(c.verdict, ok)


def _adult(args: argparse.Namespace) -> HandlerResult:
    rows = adult_rows(args.eps or list(DEFAULT_EPSILONS),
                      scenarios=args.scenario or ("user", "change", "class"),
                      max_class_size=args.max_class_size,
                      progress=None if args.quiet else stderr_progress())
    if args.json:
        print(json.dumps([r.to_json() for r in rows], indent=2))
    else:
        print(wide_markdown_table(rows) if args.wide else markdown_table(rows))
    return ExitCode.OK


def _staircase(args: argparse.Namespace) -> HandlerResult:
    pair = _pair_from_args(args)
    r = staircase_loss(pair, args.sensitivity, args.eps0, args.gamma)
    verdict = r.decide(args.eps) if args.eps is not None else None
    ok = r.verify()
    if args.json:
        print(json.dumps({
            "pair": pair.describe(), "noise": "staircase", "sensitivity": str(r.noise.delta),
            "eps0": str(r.noise.eps), "gamma": str(r.noise.gamma),
            "loss_lo": str(r.loss.lo), "loss_hi": str(r.loss.hi),
            "ratio_exact": None if r.ratio_exact is None else str(r.ratio_exact),
            "worst_output": str(r.worst_output), "pieces": r.pieces,
            "eps": args.eps, "verdict": None if verdict is None else verdict.value,
            "verified": ok,
        }, indent=2))
    else:
        print(f"pair: {pair.describe()}   noise: staircase(Δ = {r.noise.delta}, "
              f"ε₀ = {r.noise.eps}, γ = {r.noise.gamma})")
        exact = f" = ln({r.ratio_exact}) exactly" if r.ratio_exact is not None else ""
        print(f"loss L ∈ [{float(r.loss.lo):.15g}, {float(r.loss.hi):.15g}]{exact}; worst "
              f"output y = {r.worst_output} ({r.pieces} pieces)")
        if verdict is not None:
            print(f"L ≤ ε = {args.eps}: {verdict.value}")
        print(f"verified independently: {ok}")
    if not ok:
        return ExitCode.INTERNAL_ERROR
    return ExitCode.OK if verdict is None else checked_verdict(verdict, ok)


def _renyi(args: argparse.Namespace) -> HandlerResult:
    pair = _pair_from_args(args)
    if args.noise == "discrete-laplace":
        if args.alpha is None:
            raise InvalidArgument("Got --noise discrete-laplace without --alpha; pass e.g. --alpha 1/2.")
        d = discrete_laplace_renyi(pair, args.alpha, args.order)
        ok = d.verify()
        out = {"pair": pair.describe(), "noise": "discrete-laplace", "alpha": str(d.a),
               "order": d.order, "moment_forward": str(d.forward),
               "moment_backward": str(d.backward), "renyi_max": str(d.divergence("max")),
               "renyi_max_float": float(d.divergence("max")), "verified": ok}
    else:
        if args.theta is None:
            raise InvalidArgument("Got --noise laplace without --theta; pass e.g. --theta 2.")
        r = laplace_renyi(pair, args.theta, args.order)
        ok = r.verify()
        out = {"pair": pair.describe(), "noise": "laplace", "theta": str(r.theta),
               "order": r.order, "forward": [str(r.forward.lo), str(r.forward.hi)],
               "backward": [str(r.backward.lo), str(r.backward.hi)],
               "renyi_max_float": float(r.value.hi), "verified": ok}
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        for key, value in out.items():
            if isinstance(value, list):  # an exact [lo, hi] enclosure: show 15 digits
                value = f"[{float(F(value[0])):.15g}, {float(F(value[1])):.15g}] (certified)"
            print(f"{key}: {value}")
    return ExitCode.OK if ok else ExitCode.INTERNAL_ERROR


def _read_class(text: str, flag: str) -> tuple[int, str]:
    n, sep, p = text.partition(":")
    if not sep or not n.strip().isdigit():
        raise InvalidArgument(f"Got {flag} {text!r}; write a class as N:P, e.g. 14695:1669/14695.")
    return int(n), p.strip()


def _class_pair(args: argparse.Namespace) -> HandlerResult:
    r = class_pair_scale(_read_class(args.a, "--a"), _read_class(args.b, "--b"), args.eps,
                         tol=args.tol)
    ok = r.verify()
    if args.json:
        print(json.dumps({"a": args.a, "b": args.b, "eps": str(r.eps), "theta_lo": str(r.lo),
                          "theta_hi": str(r.hi), "worst_total_at_lo": r.worst_j_lo,
                          "zero_noise": r.zero_noise, "verified": ok}, indent=2))
    else:
        print(f"class A = {args.a} replaced by class B = {args.b}   ε = {r.eps}")
        if r.zero_noise:
            print("certified: θ* = 0 (no noise needed: max_j |ln m_A(j)/m_B(j)| ≤ ε)")
        else:
            print(f"certified: {r.lo} < θ* ≤ {r.hi}  (≈ {r.float():.12g})")
        print(f"verified independently: {ok}")
    return ExitCode.OK if ok else ExitCode.INTERNAL_ERROR


def _positive_int(text: str) -> int:
    try:
        k = int(text)
    except ValueError:
        k = 0
    if k < 1 or str(k) != text.strip():
        raise argparse.ArgumentTypeError(f"got {text!r}; K must be an integer ≥ 1")
    return k


def register(subparsers: Any) -> None:
    """Add ``pufferfish`` and its subcommands to the exactdp CLI."""
    top = subparsers.add_parser("pufferfish", help="multi-user Pufferfish privacy (Laplace)")
    sub = top.add_subparsers(dest="pufferfish_command", required=True)

    p = sub.add_parser("scale", help="conservative and exact Laplace scale for a secret pair")
    _add_pair_args(p)
    p.add_argument("--eps", required=True, help="ε (e.g. 1, 1/2, ln(2))")
    p.add_argument("--tol", default="1/1000000000000", help="relative enclosure width")
    p.add_argument("--releases", type=_positive_int, default=1, metavar="K",
                   help="K releases of the same sum; ε is their TOTAL budget (default 1)")
    p.add_argument("--noise", choices=("laplace", "discrete-laplace", "gaussian"),
                   default="laplace",
                   help="noise family (discrete-laplace: integer data, α = e^(-1/θ); "
                        "gaussian: needs --delta)")
    p.add_argument("--delta", help="δ in (0, 1) for --noise gaussian")
    form = p.add_mutually_exclusive_group()
    form.add_argument("--sympy", action="store_true",
                      help="print only the exact θ* as a sympy expression (Laplace noise)")
    form.add_argument("--latex", action="store_true", help="print only the exact θ* as LaTeX")
    p.set_defaults(func=_scale)

    st = sub.add_parser("staircase", help="exact loss of staircase noise for a secret pair")
    _add_pair_args(st)
    st.add_argument("--sensitivity", required=True, help="staircase Δ > 0")
    st.add_argument("--eps0", required=True, help="staircase design level ε₀ (b = e^-ε₀)")
    st.add_argument("--gamma", default="1/2", help="staircase γ in [0, 1] (default 1/2)")
    st.add_argument("--eps", help="decide L ≤ ε (exit 0 private, 1 not private)")
    st.set_defaults(func=_staircase)

    rn = sub.add_parser("renyi", help="Rényi divergence of integer order for a secret pair")
    _add_pair_args(rn)
    rn.add_argument("--order", required=True, help="integer Rényi order α ≥ 2")
    rn.add_argument("--noise", choices=("laplace", "discrete-laplace"), default="laplace")
    rn.add_argument("--theta", help="Laplace scale θ > 0")
    rn.add_argument("--alpha", help="discrete Laplace parameter a in (0, 1)")
    rn.set_defaults(func=_renyi)

    cp = sub.add_parser("class-pair", help="a whole class replaced by another, certified θ*")
    cp.add_argument("--a", required=True, help="class A as N:P (size, Bernoulli p)")
    cp.add_argument("--b", required=True, help="class B as N:P")
    cp.add_argument("--eps", required=True)
    cp.add_argument("--tol", default="1/1000000000")
    cp.add_argument("--json", action="store_true")
    cp.set_defaults(func=_class_pair)

    c = sub.add_parser("closed-forms", help="sympy closed forms for Bernoulli pairs")
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=_closed)

    q = sub.add_parser("certify", help="certify a population of Bernoulli users")
    _add_pair_args(q)
    q.add_argument("--others", help="comma-separated P(D=1) of the other users")
    q.add_argument("--presence", help="comma-separated presence probabilities ζ")
    q.add_argument("--theta", required=True, help="Laplace scale θ > 0")
    q.add_argument("--eps", required=True)
    q.add_argument("--tol", default="1/1000000000000")
    q.set_defaults(func=_certify)

    a = sub.add_parser("adult", help="conservative vs exact θ on the UCI Adult classes")
    a.add_argument("--eps", action="append", help="ε (repeatable; default 1/10, 1/2, 1, 2)")
    a.add_argument("--scenario", action="append",
                   choices=("user", "change", "class", "class-change"))
    a.add_argument("--max-class-size", type=int, default=None,
                   help="only classes up to this size in the class scenario (default: every class)")
    a.add_argument("--wide", action="store_true", help="one column per ε")
    a.add_argument("--json", action="store_true")
    a.add_argument("--quiet", action="store_true", help="no progress on stderr")
    a.set_defaults(func=_adult)
    for parser in sub.choices.values():
        accept_negative_numbers(parser)  # "--eps -1/10" reaches the specific ε check
