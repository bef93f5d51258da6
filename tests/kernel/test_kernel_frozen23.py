"""Every dataclass the kernel defines is frozen (the project's style rule: frozen result dataclasses): a claim
or verdict that the kernel has checked cannot be edited afterwards and then read as checked.

``scripts/mutation.py`` swaps function code and cannot apply a class option such as
``frozen=True -> False``; applied by hand, each such mutant fails this test (session 23:
``verify.py`` KernelVerdict, ``remap.py`` RemapClaim, ``threshold_claim.py`` ThresholdClaim and
the others listed in ``scripts/mutation_equivalent.txt`` as tool limits).
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil

import pytest

import exactdp.kernel

MODULES = sorted(m.name for m in pkgutil.iter_modules(exactdp.kernel.__path__) if m.name != "__main__")


def _dataclasses() -> list[tuple[str, type]]:
    out = []
    for name in MODULES:
        mod = importlib.import_module(f"exactdp.kernel.{name}")
        out += [(f"{name}.{k}", v) for k, v in vars(mod).items()
                if isinstance(v, type) and v.__module__ == mod.__name__ and dataclasses.is_dataclass(v)]
    return out


FOUND = _dataclasses()


def test_the_kernel_defines_dataclasses():
    names = {n for n, _ in FOUND}
    assert len(FOUND) >= 15  # 19 in session 23
    assert {"verify.KernelVerdict", "remap.RemapClaim", "threshold_claim.ThresholdClaim",
            "linear.LinearClaim", "privacy.LevelClaim", "privacy.CheckClaim"} <= names


@pytest.mark.parametrize("name,cls", FOUND, ids=[n for n, _ in FOUND])
def test_every_kernel_dataclass_is_frozen(name, cls):
    assert cls.__dataclass_params__.frozen, f"{name} is not frozen"
    field = dataclasses.fields(cls)[0].name
    obj = object.__new__(cls)
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(obj, field, None)
