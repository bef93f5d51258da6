"""Hairline edits of the Gaussian and staircase Pufferfish documents, judged independently (session 29).

On random pairs of laws (1–3 support points in 0…5, or 0…4 for the staircase):

* ``pufferfish-gaussian-delta`` / ``-scale``: every claimed end moved by ±2⁻ᵏ (k = 8 … 4,000),
  set to 0 or doubled, and δ's ends put at the true δ(σ) ± 2⁻ᵏ (k = 30 … 250). The truth is
  computed here: h = g_A − e^ε g_B (g the Gaussian mixtures) has its sign changes found on a
  4,000-point scan of [min − 40σ, max + 40σ] and refined by mpmath's root finder at 90 digits;
  ∫ (h)_+ is a sum of Gaussian CDF differences over the positive intervals; δ(σ) is the larger of
  the two directions. A claim is true when each enclosure holds the value, and for the scale
  when δ(lo) > δ ≥ δ(hi).
* ``pufferfish-staircase`` (b = e^{−ε₀} rational): the loss ends moved as above and put at
  ln R ± 2⁻ᵏ (k = 60 … 260), the exact ratio R moved; the true R is the largest exact ratio
  max(g_P/g_Q, g_Q/g_P) of the two piecewise-constant output densities at the midpoint of every
  piece between the break points s ± kΔ, s ± (k ± γ)Δ, |k| ≤ 8 — brute force, not the kernel's
  enumeration.

Each edited document goes to the kernel; an exactdp error means malformed (refused). A search,
not a proof. Run: ``python scripts/hairline_fuzz_pufferfish.py [--gaussian 16] [--staircase 30]
[--seed 2]`` (the Gaussian truth is slow: about 1 min per document).
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import random
from fractions import Fraction as F
from typing import Any

import mpmath

from exactdp.kernel.jsonio import write_rational
from exactdp.kernel.verify import verify_document
from exactdp.pufferfish.distributions import DiscreteDistribution
from exactdp.pufferfish.gaussian import gaussian_delta, gaussian_scale
from exactdp.pufferfish.secrets import DistributionPair
from exactdp.pufferfish.staircase import staircase_loss
from exactdp.testing.tampering import kernel_accepts

CLOSE = mpmath.mpf(10) ** -70


def mp(x: Any) -> Any:
    x = F(x)
    return mpmath.mpf(x.numerator) / x.denominator


def rat(x: Any) -> F:
    return F(mpmath.nstr(x, 85))


def random_law(rng: random.Random, top: int) -> DiscreteDistribution:
    sup = sorted(rng.sample(range(top + 1), rng.randint(1, 3)))
    w = [rng.randint(1, 5) for _ in sup]
    return DiscreteDistribution(tuple(F(s) for s in sup), tuple(F(x, sum(w)) for x in w))


def hockey(A: list, B: list, sig: Any, eps: Any) -> Any:
    """∫ (g_A − e^ε g_B)_+ for Gaussian mixtures A, B of (center, weight), scale σ."""
    E = mpmath.e ** eps

    def h(x: Any) -> Any:
        return sum(p * mpmath.npdf(x, s, sig) for s, p in A) - E * sum(p * mpmath.npdf(x, s, sig) for s, p in B)

    lo, hi = min(s for s, _ in A + B) - 40 * sig, max(s for s, _ in A + B) + 40 * sig
    xs = [lo + (hi - lo) * k / 4000 for k in range(4001)]
    vs = [h(x) for x in xs]
    roots = [a if va == 0 else mpmath.findroot(h, (a, b), solver="anderson")
             for a, b, va, vb in zip(xs, xs[1:], vs, vs[1:]) if va == 0 or va * vb < 0]
    edges = [-mpmath.inf] + roots + [mpmath.inf]
    total = mpmath.mpf(0)
    for a, b in zip(edges, edges[1:]):
        mid = b - 1 if a == -mpmath.inf else a + 1 if b == mpmath.inf else (a + b) / 2
        if h(mid) > 0:
            def mass(L: list, a: Any = a, b: Any = b) -> Any:
                return sum(p * (mpmath.ncdf(b, s, sig) - mpmath.ncdf(a, s, sig)) for s, p in L)
            total += mass(A) - E * mass(B)
    return total


_CACHE: dict[Any, Any] = {}


def delta_of(q: dict, sig: Any) -> Any:
    key = (json.dumps([q["P"], q["Q"], q["level"]], sort_keys=True), sig)
    if key not in _CACHE:
        A = [(mp(s), mp(p)) for s, p in zip(q["P"]["support"], q["P"]["probs"])]
        B = [(mp(s), mp(p)) for s, p in zip(q["Q"]["support"], q["Q"]["probs"])]
        eps = mp(q["level"]["eps"])
        _CACHE[key] = max(hockey(A, B, sig, eps), hockey(B, A, sig, eps))
    return _CACHE[key]


def holds(enc: dict, v: Any) -> bool | None:
    a, b = mp(enc["lo"]), mp(enc["hi"])
    if v == 0:  # no positive piece of h was found: δ = 0 exactly (P ≤ e^ε Q everywhere)
        return bool(a <= 0 <= b)
    return None if min(abs(v - a), abs(v - b)) < CLOSE else bool(a <= v <= b)


def gaussian_truth(d: dict) -> bool | None:
    q, c = d["question"], d["claim"]
    if d["kind"] == "pufferfish-gaussian-delta":
        return holds(c["delta"], delta_of(q, mp(q["sigma"])))
    lo, hi, t = mp(c["least"]["lo"]), mp(c["least"]["hi"]), mp(q["delta"])
    dl, dh = delta_of(q, lo), delta_of(q, hi)
    if min(abs(dl - t), abs(dh - t)) < CLOSE:
        return None
    parts = [bool(lo <= hi and dl > t and dh <= t), holds(c["at_lo"], dl), holds(c["at_hi"], dh)]
    return False if False in parts else None if None in parts else True


def staircase_ratio(P: DiscreteDistribution, Q: DiscreteDistribution, b: F, D: F, g: F) -> F:
    def f(t: F) -> F:  # the staircase density without its normaliser (it cancels)
        t = abs(t)
        k = math.floor(t / D)
        return b ** k if t - k * D < g * D else b ** (k + 1)

    pts = sorted({s + k * D + o for s in P.support + Q.support for k in range(-8, 9) for o in (0, g * D, -g * D)})
    best = F(1)
    for a, c in zip(pts, pts[1:]):
        y = (a + c) / 2
        gp = sum(p * f(y - s) for s, p in zip(P.support, P.probs))
        gq = sum(p * f(y - s) for s, p in zip(Q.support, Q.probs))
        best = max(best, gp / gq, gq / gp)
    return best


def attack(d: dict, edits: list[tuple[tuple, F]], truth: Any) -> list[int]:
    tried = accepted = forged = undecided = 0
    for path, x in edits:
        e = copy.deepcopy(d)
        node = e["claim"]
        for k in path[:-1]:
            node = node[k]
        node[path[-1]] = write_rational(x, str(path))
        tried += 1
        try:
            ok = kernel_accepts(e)
        except Exception as exc:  # noqa: BLE001 - not an exactdp refusal: a crash
            print(f"CRASH {d['kind']} {path}: {type(exc).__name__}: {exc}")
            ok = None
        t = truth(e) if ok else True
        accepted += bool(ok)
        undecided += t is None
        if t is False:
            forged += 1
            print(f"FORGERY {d['kind']} {path} -> {str(x)[:60]}")
            open(f"hairline_pufferfish_forgery_{forged}.json", "w").write(json.dumps(e))
    return [tried, accepted, forged, undecided]


def nudged(d: dict, keys: list[str]) -> list[tuple[tuple, F]]:
    out = []
    for key in keys:
        for end in ("lo", "hi"):
            v = F(d["claim"][key][end])
            out += [((key, end), v + s * F(1, 2**k)) for k in (8, 30, 60, 100, 200, 1000, 4000) for s in (1, -1)]
            out += [((key, end), F(0)), ((key, end), 2 * v)]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gaussian", type=int, default=16)
    ap.add_argument("--staircase", type=int, default=30)
    ap.add_argument("--seed", type=int, default=2)
    args = ap.parse_args()
    mpmath.mp.dps = 90  # the truth's working precision (set here, not on import)
    rng = random.Random(args.seed)
    total = [0, 0, 0, 0]
    for it in range(args.gaussian):
        P, Q = random_law(rng, 5), random_law(rng, 5)
        if P == Q:
            continue
        eps = rng.choice(["1/2", "1", "2"])
        if rng.random() < 0.5:
            d = gaussian_delta(DistributionPair(P, Q), F(rng.randint(2, 30), 10), eps).to_document()
        else:
            d = gaussian_scale(DistributionPair(P, Q), eps, rng.choice(["1/100", "1/20", "1/1000"])).to_document()
        if not verify_document(d).verified or gaussian_truth(d) is not True:
            print(f"{it:3} {d['kind']}: the genuine document is rejected or not judged true "
                  f"(kernel {verify_document(d).verified}, truth {gaussian_truth(d)}); skipped")
            continue
        edits = nudged(d, list(d["claim"]))
        if d["kind"] == "pufferfish-gaussian-delta":
            v = delta_of(d["question"], mp(d["question"]["sigma"]))
            edits += [(("delta", end), rat(v + s * mpmath.mpf(2) ** -k))
                      for k in (30, 60, 100, 150, 200, 250) for s in (1, -1) for end in ("lo", "hi")]
        counts = attack(d, edits, gaussian_truth)
        print(f"{it:3} {d['kind']:28} tried {counts[0]:4} accepted {counts[1]:4} forgeries {counts[2]} "
              f"undecided {counts[3]}", flush=True)
        total = [a + b for a, b in zip(total, counts)]
    for it in range(args.staircase):
        P, Q = random_law(rng, 4), random_law(rng, 4)
        if P == Q:
            continue
        D, g, b = F(rng.choice([1, 2, 3]), rng.choice([1, 2])), F(rng.randint(0, 4), 4), F(1, rng.choice([2, 3, 4]))
        d = staircase_loss(DistributionPair(P, Q), D, f"ln({1 / b})", g).to_document()
        R = staircase_ratio(P, Q, b, D, g)
        assert verify_document(d).verified and F(d["claim"]["ratio"]) == R, f"genuine staircase {it}"
        L = mpmath.log(mp(R))

        def truth(e: dict, R: F = R, L: Any = L) -> bool | None:
            return bool(F(e["claim"]["ratio"]) == R) and holds(e["claim"]["loss"], L)

        edits = nudged(d, ["loss"]) + [(("ratio",), r) for r in (R + F(1, 2**60), R - F(1, 2**60), 2 * R, F(1))]
        edits += [(("loss", end), rat(L + s * mpmath.mpf(2) ** -k))
                  for k in (60, 120, 200, 260) for s in (1, -1) for end in ("lo", "hi")]
        counts = attack(d, edits, truth)
        print(f"{it:3} pufferfish-staircase         tried {counts[0]:4} accepted {counts[1]:4} "
              f"forgeries {counts[2]} undecided {counts[3]}  (R = {R})", flush=True)
        total = [a + b for a, b in zip(total, counts)]
    print(f"total: {total[0]} edits tried, {total[1]} accepted, {total[2]} forgeries, {total[3]} undecided")


if __name__ == "__main__":
    main()
