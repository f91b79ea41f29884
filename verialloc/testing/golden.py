"""The golden tables of `verialloc audit` (verialloc.audit.golden: certified brackets shipped with the package) as
test cases for any accountant, so a pytest suite catches what the audit catches (known failure regions of other
accountants: docs/stability.md, docs/audit.md) without recomputing a reference:

    @pytest.mark.parametrize("case", golden_cases(scheme="poisson"), ids=str)
    def test_my_accountant(verialloc_check, case):
        verialloc_check(my_epsilon, case.config, **case.query, method=case.reference("both"))

Each case's reference is the entry's certified bracket (lower end rounded down, upper up) for the direction asked.
"""

from __future__ import annotations

from dataclasses import dataclass

import mpmath as mp

from ..audit import golden
from ..config import Config
from ..errors import InvalidParameter
from ..result import Bracket
from ..validation import direction as check_direction


@dataclass(frozen=True)
class GoldenCase:
    """One golden entry: `id`, `config`, `quantity` ("epsilon": ε at δ = `target`; "delta": δ at ε = `target`)."""

    id: str
    config: Config
    quantity: str
    target: str
    brackets: tuple  # ((direction, (lower, upper)), ...) as decimal strings

    def __str__(self) -> str:
        return self.id

    @property
    def query(self) -> dict:
        """The keyword of the query for `verialloc_check` / `check_accountant`: {"delta": …} or {"epsilon": …}."""
        return {"delta": self.target} if self.quantity == "epsilon" else {"epsilon": self.target}

    def reference(self, direction: str = "both") -> Bracket:
        """The entry's certified Bracket for `direction` (remove | add | both)."""
        d = check_direction(direction)
        ends = dict(self.brackets)
        if d not in ends:
            raise InvalidParameter("direction", d, f"entry {self.id} holds " + ", ".join(ends))
        lo, hi = ends[d]
        with mp.workdps(30):
            lower, upper = mp.mpf(lo), mp.mpf(hi)
        return Bracket(self.quantity, lower, upper, "golden", d, "bound", {"golden": self.id})


def golden_cases(table: str = "default", *, scheme: str | None = None) -> list[GoldenCase]:
    """The entries of golden table `table` as GoldenCase objects (only those of `scheme` when given:
    "allocation" | "poisson")."""
    entries = golden.load(table)["entries"]
    if scheme is not None and scheme not in ("allocation", "poisson"):
        raise InvalidParameter("scheme", scheme, "must be allocation or poisson")
    return [
        GoldenCase(
            e["id"],
            golden.config_of(e),
            e["quantity"],
            e["target"],
            tuple((d, tuple(b)) for d, b in e["brackets"].items()),
        )
        for e in entries
        if scheme is None or e["config"]["scheme"] == scheme
    ]
