"""The mechanism of the quadrature (quadrature.py) at the working precision: its density q, loss ℓ and support
pieces, the closed-form last coordinate (F2), the kinks of its profile, the points where U = e^ℓ reaches a level
(monotone root search) and the piecewise integration of E_Q[h(x, U(x))] with its error estimates.
"""

from __future__ import annotations

import mpmath as mp

from ..mechanisms.base import ContinuousMechanism

_ROUGH_DEGREE = 3
_ROOT_ITER = 300
_EXPAND = 80


class _Kernel:
    """A mechanism at the working precision: q, ℓ, the pieces of its support and the kinks of its profile."""

    def __init__(self, mech: ContinuousMechanism):
        lo, hi = mech.q_interval()
        self.mech = mech
        self.lo, self.hi = mp.mpf(lo), mp.mpf(hi)
        self.breaks = sorted(mp.mpf(b) for b in mech.breakpoints() if self.lo < b < self.hi)
        self.ends = [self.lo, *self.breaks, self.hi]
        #: U at the breakpoints: where ℓ is flat these are atoms of U under Q, hence kinks of c ↦ H_c
        self.atoms = sorted({mp.exp(mech.privacy_loss(b)) for b in self.breaks})
        self.kinks = [mp.mpf(0), *self.atoms]

    def u(self, x) -> mp.mpf:
        return mp.exp(self.mech.privacy_loss(x))

    def call(self, c) -> mp.mpf:
        """E_Q[(U − c)_+] = H_c(P‖Q) for c > 0, 1 − c for c ≤ 0 (F2; uses E_Q[U] = 1)."""
        return 1 - c if c <= 0 else self.mech.delta(mp.log(c), "remove")

    def put(self, c) -> mp.mpf:
        """E_Q[(c − U)_+] = c·H_{1/c}(Q‖P) for c > 0, 0 for c ≤ 0 (F2)."""
        return mp.mpf(0) if c <= 0 else c * self.mech.delta(-mp.log(c), "add")

    def solve(self, u) -> list:
        """Points x inside the pieces where U(x) = u (u > 0), one per piece at most (ℓ monotone on pieces)."""
        y = mp.log(u)
        out = []
        for a, b in zip(self.ends, self.ends[1:]):
            x = _monotone_root(lambda z: self.mech.privacy_loss(z) - y, a, b)
            if x is not None:
                out.append(x)
        return out

    def expect(self, h, targets, bound, rule: str, scale, start=None, zero_above=None) -> tuple:
        """(E_Q[h(x, U(x)) 1{x ≥ start}], quadrature error estimate, inner error integrated against q).

        h returns (value, inner error estimate). `targets` are pairs (u, singular): split where U(x) = u; the
        non-analytic side of a singular point is the side with smaller U. `bound` = (α, β) with |h| ≤ α + βU
        guides the cut-off of infinite pieces. h vanishes where U ≥ zero_above (skipped).
        """

        def f(x):
            w = self.mech.q_pdf(x)
            if not w:
                return w
            v, e = h(x, self.u(x))
            return mp.mpc(w * scale * v, w * scale * e) if e else w * scale * v

        first = self.lo if start is None else start
        pts, singular = {p for p in self.ends if p >= first} | {first}, set()
        for u, sing in targets:
            if u > 0:
                xs = [x for x in self.solve(u) if x > first]
                pts.update(xs)
                if sing:
                    singular.update(xs)
        pts = self._truncate(sorted(pts), bound, scale)
        if rule == "refined":
            pts = _refine(pts)
        degree = _ROUGH_DEGREE if rule == "rough" else None
        total, err = mp.mpf(0), mp.mpf(0)
        for a, b in zip(pts, pts[1:]):
            mid = _inside(a, b)
            um = self.u(mid)
            if zero_above is not None and um >= zero_above:
                continue
            tails = not (mp.isfinite(a) and mp.isfinite(b))
            rough_end = any(p in singular and um < self.u(p) for p in (a, b))
            method = "tanh-sinh" if tails or rough_end else "gauss-legendre"
            v, e = mp.quad(f, [a, b], method=method, error=True, maxdegree=degree)
            total += v
            err += e
        return mp.re(total) / scale, err / scale, mp.im(total) / scale

    def _truncate(self, pts: list, bound, scale) -> list:
        """Cut infinite end pieces into a finite core and a tail (the core is far cheaper to integrate)."""
        out = list(pts)
        if not mp.isfinite(out[0]) and not mp.isfinite(out[1]):
            out.insert(1, mp.mpf(0))
        if not mp.isfinite(out[-1]) and not mp.isfinite(out[-2]):
            out.insert(-1, mp.mpf(0))
        if not mp.isfinite(out[0]):
            out.insert(1, self._reach(out[1], -1, bound, scale))
        if not mp.isfinite(out[-1]):
            out.insert(-1, self._reach(out[-2], 1, bound, scale))
        return out

    def _reach(self, x0, sign: int, bound, scale):
        """First point x0 ± 2^{k−8} past the peak of scale·q·(α + βU) where it is below the working precision.

        Only an efficiency choice: the tail beyond it is still integrated (tanh-sinh), with its own estimate.
        """
        alpha, beta = bound

        def proxy(x):
            return scale * self.mech.q_pdf(x) * (alpha + beta * self.u(x))

        prev = peak = proxy(x0)
        step = mp.ldexp(1, -8)
        x = x0
        for _ in range(_EXPAND):
            x = x0 + sign * step
            v = proxy(x)
            peak = max(peak, v)
            if v <= prev and v <= mp.mp.eps * max(peak, 1):
                break
            prev, step = v, 2 * step
        return x


def _inside(a, b):
    """A point strictly inside the piece (a, b)."""
    if mp.isfinite(a) and mp.isfinite(b):
        return (a + b) / 2
    if mp.isfinite(a):
        return a + 1
    return b - 1 if mp.isfinite(b) else mp.mpf(0)


def _refine(pts: list) -> list:
    """Cut every finite piece at its midpoint and every infinite one max(1, |end|) past its finite end."""
    out = [pts[0]]
    for a, b in zip(pts, pts[1:]):
        if mp.isfinite(a) and mp.isfinite(b):
            out.append((a + b) / 2)
        elif mp.isfinite(a):
            out.append(a + max(1, abs(a)))
        elif mp.isfinite(b):
            out.append(b - max(1, abs(b)))
        else:
            out.append(mp.mpf(0))
        out.append(b)
    return out


def _monotone_root(f, a, b):
    """A root of a monotone f strictly inside (a, b), or None.

    Infinite ends are probed by doubling steps while f still changes (a flat tail has no root) and while
    |x| stays well inside the working precision.
    """
    u = a if mp.isfinite(a) else (b - 1 if mp.isfinite(b) else mp.mpf(-1))
    v = b if mp.isfinite(b) else u + 1
    fu, fv = f(u), f(v)
    step = mp.mpf(1)
    for _ in range(min(_EXPAND, mp.mp.prec // 2)):
        if fu * fv < 0:
            return _illinois(f, u, fu, v, fv)
        if fu == 0 and fv == 0:
            return None  # flat at the level: no interior kink
        for x, fx, end in ((u, fu, a), (v, fv, b)):
            if fx == 0 and x != end:
                return x
        moved = False
        if not mp.isfinite(a):
            u -= step
            new = f(u)
            moved, fu = new != fu, new
        if not mp.isfinite(b):
            v += step
            new = f(v)
            moved, fv = moved or new != fv, new
        if not moved:
            return None
        step *= 2
    return None


def _illinois(f, a, fa, b, fb):
    """Root of f on [a, b] with f(a)·f(b) < 0 (Illinois regula falsi), to the working precision."""
    side = 0
    c = a
    for _ in range(_ROOT_ITER):
        prev, c = c, (a * fb - b * fa) / (fb - fa)
        fc = f(c)
        tol = 4 * mp.mp.eps * (1 + abs(c))
        if fc == 0 or abs(c - prev) <= tol or abs(b - a) <= tol:
            return c
        if (fc > 0) == (fb > 0):
            b, fb = c, fc
            if side == -1:
                fa /= 2
            side = -1
        else:
            a, fa = c, fc
            if side == 1:
                fb /= 2
            side = 1
    return c
