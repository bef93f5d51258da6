"""The readers of the privacy documents (:mod:`exactdp.kernel.privacy`).

**Privacy** (:mod:`exactdp.kernel.privacy`). ``privacy-level``::

    {"question": {... "property": "privacy-level", "level": null, "mechanism": rows},
     "claim": {"value": "0" | "infinite" | {"t": "p/q"} | {"eps": "<closed form>"}
                        | {"log_ratio": {"ratio": "p/q", "distance": {"coef", "radicand"}}},
               "witness": [y, y', z] | null, "enclosure": {"lo", "hi"} | null},
     "evidence": {}}

The value is written as the schema writes levels: ``{"t"}`` when t = e^{−V} is rational,
else the closed form ``log(R)/d``; ``{"log_ratio"}`` (V = ln(ratio)/distance) only when that
closed form is too long to write. A value written another way is read by its exact value
(``{"eps"}`` must have the form k·√s·log(T)). ``privacy-check``: the question's property
``private`` at its exact level, claim ``{"verdict": "holds" | "fails", "violation": [y, y',
z] | null}``, evidence ``{}``.

>>> from fractions import Fraction as F
>>> from exactdp.arithmetic.interval import Enclosure
>>> from exactdp.engine.documents import write_privacy_level
>>> from exactdp.engine.questions import question_of
>>> from exactdp.kernel.jsonio import dumps, loads
>>> from exactdp.kernel.privacy import check_privacy_level
>>> from exactdp.spaces.metrics import line
>>> q = question_of(line(2), "privacy-level", mechanism=[["3/4", "1/4"], ["1/4", "3/4"]])
>>> doc = write_privacy_level(q, F(3), (0, 1, 0), Enclosure(F(1), F(2)))
>>> doc["claim"]["value"]
{'t': '1/3'}
>>> check_privacy_level(read_privacy_level(loads(dumps(doc))))
True
"""

from __future__ import annotations

from typing import Any

from exactdp.errors import InvalidArgument
from exactdp.kernel.jsonio import (
    read_closed_form,
    read_enclosure,
    read_envelope,
    read_int,
    read_list,
    read_object,
    read_rational,
    read_str,
    show,
)
from exactdp.kernel.privacy import (
    PRIVACY_CHECK,
    PRIVACY_KINDS,
    PRIVACY_LEVEL,
    CheckClaim,
    LevelClaim,
    LogValue,
    log_form,
)
from exactdp.kernel.question import Property
from exactdp.kernel.read_common import read_parts
from exactdp.spaces.distances import Distance

__all__ = ["read_privacy_level", "read_privacy_check"]

_MAX_RADICAND = 2**64


def _read_value(value: Any) -> LogValue | str:
    where = "claim.value"
    if value in ("0", "infinite"):
        return str(value)
    if not isinstance(value, dict) or len(value) != 1:
        raise InvalidArgument(f"{where}: expected \"0\", \"infinite\" or an object with one key "
                              "\"t\", \"eps\" or \"log_ratio\".")
    (key,) = value
    if key == "t":
        t = read_rational(value["t"], where + ".t")
        if not 0 < t < 1:
            raise InvalidArgument(f"{where}.t = {show(t)}; a level's t = e^-ε lies in (0, 1) (t = 1/R for the "
                                  "largest ratio R > 1 of the mechanism).")
        return LogValue(1 / t, Distance.rational(1))
    if key == "eps":
        form = log_form(read_closed_form(value["eps"], where + ".eps"))
        if form is None:
            raise InvalidArgument(f"{where}.eps: a privacy level of an exact mechanism is "
                                  "ln(R)/d; write it as k*sqrt(s)*log(T) (T > 1 rational).")
        if form.e.radicand >= _MAX_RADICAND:
            raise InvalidArgument(f"{where}.eps: the radicand is ≥ 2^64.")
        return form
    if key == "log_ratio":
        obj = read_object(value[key], where + ".log_ratio", ("ratio", "distance"))
        R = read_rational(obj["ratio"], where + ".log_ratio.ratio")
        dd = read_object(obj["distance"], where + ".log_ratio.distance", ("coef", "radicand"))
        c = read_rational(dd["coef"], where + ".log_ratio.distance.coef")
        r = int(read_rational(dd["radicand"], where + ".log_ratio.distance.radicand", integer=True))
        if R <= 1 or c <= 0 or not 1 <= r < _MAX_RADICAND:
            raise InvalidArgument(f"{where}.log_ratio: got ratio {show(R)}, coef {show(c)}, radicand {show(r)}; "
                                  "need ratio > 1, coef > 0 and 1 ≤ radicand < 2^64.")
        return LogValue(R, Distance(c, r))
    raise InvalidArgument(f"{where}: unexpected key {key[:40]!r}; use \"t\", \"eps\" or \"log_ratio\".")


def _read_witness(value: Any, where: str) -> tuple[int, int, int] | None:
    if value is None:
        return None
    items = read_list(value, where, length=3)
    y, y2, z = (read_int(x, f"{where}[{k}]", lo=0) for k, x in enumerate(items))
    return y, y2, z


def read_privacy_level(doc: Any) -> LevelClaim:
    """Read a ``privacy-level`` document (malformed: InvalidArgument; altered question:
    CertificateInvalid)."""
    q, claim, _ = read_parts(read_envelope(doc, PRIVACY_KINDS),
                             {PRIVACY_LEVEL: (("value", "witness", "enclosure"), ())}, (Property.PRIVACY_LEVEL,))
    value = _read_value(claim["value"])
    enc = None if claim["enclosure"] is None else read_enclosure(claim["enclosure"], "claim.enclosure")
    return LevelClaim(q, value, _read_witness(claim["witness"], "claim.witness"), enc)


def read_privacy_check(doc: Any) -> CheckClaim:
    """Read a ``privacy-check`` document."""
    q, claim, _ = read_parts(read_envelope(doc, PRIVACY_KINDS), {PRIVACY_CHECK: (("verdict", "violation"), ())},
                             (Property.PRIVATE,))
    holds = read_str(claim["verdict"], "claim.verdict", ("holds", "fails")) == "holds"
    return CheckClaim(q, holds, _read_witness(claim["violation"], "claim.violation"))
