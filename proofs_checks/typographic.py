"""Errata with no executable content (typography, captions, figure settings, unspecified constants)."""

from . import doc_only

doc_only(
    "E11",
    "[004] text after Cor 4.5 writes ln(t/δ) where Lemma C.2 / [000] Cor 3.14 have ln(1/δ)",
    "asymptotic statement with unspecified universal constants: nothing to evaluate; cite the Lemma C.2 form",
)
doc_only(
    "E18",
    "[003] figure captions: Fig. 10 'λ = 1/t' while k varies, Fig. 11 caption missing, 'pCT' for pCTR",
    "caption text only; figure reproductions use λ = k/t for k > 1",
)
doc_only(
    "E22",
    "[001] App. A.2 (Thm 3 proof): intermediate bounds miss e^{(λ−1)·}; 'Equation 11' is Eq. 14; Δ range",
    "typesetting in intermediate proof lines; the theorem statement (F60) is what is used",
)
doc_only(
    "E23",
    "[001] '1 < δ < 0', clones bound 'log(2δ)' and '(s^ε + 1)', bracket placement in Wang et al.'s formula",
    "typographic; the conversion itself is checked symbolically in F18",
)
doc_only(
    "E26",
    "[000] Thm 4.1 / [004] §2.3 subscripts: 'δ_{P_t,λ(R)}', 'A_{t,λ}(R)' for A_{t,k}(R), A_{t,1}/A_{t,k}",
    "cosmetic subscripts; no formula changes",
)
doc_only(
    "E27",
    "figure settings differ between versions (Dong et al. comparison σ = 1 vs 0.6; large-ε figure; MC "
    "sample sizes and confidence)",
    "experiment settings, not mathematics: each figure is reproduced with its own "
    "version's parameters (formulas.md §11)",
)
doc_only(
    "E28",
    "[003] Claim A.2 items numbered (1), (3) with (2) missing",
    "numbering only; the claim's content (loss identity, dual is a realization) is checked in F7/I15 and F26/I18",
)
