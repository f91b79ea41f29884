"""certify when the pld schedule cannot serve the claim at all (hostile-user pass): σ = 0.3, t = 10⁵, E = 10 needs a
geometric grid beyond its cap; certify then takes method best's bracket (rdp's upper end for the remove direction)
instead of refusing with advice to use a --method it does not have. Reference: the rdp upper end is an upper bound
of ε (F18-F19, tested against the exact layer elsewhere), and the claim of 30 lies above it; best has no
non-trivial lower end here, so a claim below the upper end stays inconclusive, naming why."""

import pytest

from verialloc import Config, Gaussian
from verialloc.certify import certify, make_claim
from verialloc.errors import UnsupportedRequest

CONFIG = Config(Gaussian("0.3"), steps=100_000, epochs=10)


@pytest.mark.parametrize("claimed,verdict", [("30", "certified"), ("1e-3", "inconclusive")])
def test_remove_direction_is_decided_by_best(claimed, verdict):
    cert = certify(CONFIG, make_claim(delta="1e-10", claimed_epsilon=claimed), "remove", budget=60)
    assert cert.verdict == verdict
    assert [s.method for s in cert.steps] == ["best"]
    assert (
        cert.stop_reason == "decided" if verdict == "certified" else "pld cannot serve this claim" in cert.stop_reason
    )


def test_both_directions_are_refused_naming_every_method():
    with pytest.raises(UnsupportedRequest) as info:
        certify(CONFIG, make_claim(delta="1e-10", claimed_epsilon="30"), "both", budget=60)
    text = str(info.value)
    assert "pld:" in text and "rdp:" in text and "analytic:" in text
