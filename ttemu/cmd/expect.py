"""Comparing an output in L1 with an expected matrix, and a compact tile diff.

A datum matches when ``|actual - expected| <= atol + rtol * |expected|`` (NaN matches
NaN, an infinity matches the same infinity). The report names which tiles, faces,
rows and columns differ and the largest absolute and relative errors.
"""

from __future__ import annotations

from ..record import Factory, Record

import numpy as np

# default tolerances per format: (atol, rtol); roughly half a unit in the last place
DEFAULT_TOLERANCE = {
    "fp32": (0.0, 0.0), "tf32": (1e-3, 1e-3), "fp16": (1e-3, 1e-3), "bf16": (1e-2, 1e-2),
    "bfp8_b": (3e-2, 3e-2), "bfp8": (3e-2, 3e-2), "bfp4_b": (0.25, 0.25), "bfp4": (0.25, 0.25),
    "bfp2_b": (1.0, 1.0), "bfp2": (1.0, 1.0), "int32": (0, 0), "int8": (0, 0), "uint8": (0, 0),
    "uint16": (0, 0),
}
FACES = ("top-left", "top-right", "bottom-left", "bottom-right")


class Comparison(Record):
    ok: bool
    mismatched: int
    total: int
    max_abs: float
    max_rel: float
    lines: list = Factory(list)
    atol: float = 0.0
    rtol: float = 0.0

    def text(self) -> str:
        return "\n".join(self.lines)


def compare(actual, expected, atol=0.0, rtol=0.0, name="output") -> Comparison:
    a = np.asarray(actual, dtype=np.float64)
    e = np.asarray(expected, dtype=np.float64)
    if a.shape != e.shape:
        raise ValueError(f"{name}: shapes differ: {a.shape} vs {e.shape}")
    both_nan = np.isnan(a) & np.isnan(e)
    same_inf = np.isinf(a) & np.isinf(e) & (np.sign(a) == np.sign(e))
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        diff = np.abs(a - e)
        close = (diff <= atol + rtol * np.abs(e)) | both_nan | same_inf
        rel = np.where(e != 0, diff / np.abs(e), np.where(diff == 0, 0.0, np.inf))
    bad = ~close
    n_bad = int(bad.sum())
    # the largest errors over every compared value (NaN/Inf pairs that match count as 0)
    err = np.where(both_nan | same_inf, 0.0, diff)
    rerr = np.where(both_nan | same_inf, 0.0, rel)
    max_abs = float(np.nanmax(err)) if err.size else 0.0
    max_rel = float(np.nanmax(rerr)) if rerr.size else 0.0
    lines = []
    if n_bad:
        lines.append(f"{name}: {n_bad} of {a.size} values differ (atol {atol:g}, rtol {rtol:g}); "
                     f"max abs error {max_abs:.6g}, max rel error {max_rel:.6g}")
        lines += _tile_report(a, e, bad)
    return Comparison(n_bad == 0, n_bad, a.size, max_abs, max_rel, lines, atol, rtol)


def vacuous(expected, atol=0.0, rtol=0.0) -> str:
    """Why a tolerance makes a check pass whatever the kernel does, or "": it accepts an
    all-zero output (nothing written) although the expected values are not all zero.
    |0 - e| <= atol + rtol * |e| for every e  <=>  max |e| * (1 - rtol) <= atol."""
    e = np.abs(np.asarray(expected, dtype=np.float64))
    finite = e[np.isfinite(e)]
    if not finite.size or not finite.any():
        return ""
    top = float(finite.max())
    if top * (1.0 - rtol) <= atol:
        why = (f"atol {atol:g} is at least the largest expected magnitude {top:.3g}" if rtol < 1 else
               f"rtol {rtol:g} >= 1 accepts any value between 0 and twice the expected one")
        return f"{why}, so an all-zero output passes"
    return ""


def _ranges(idx):
    """[0,1,2,5,7,8] -> '0-2,5,7-8'."""
    idx = sorted(int(i) for i in idx)
    out, start, prev = [], None, None
    for i in idx:
        if start is None:
            start = prev = i
        elif i == prev + 1:
            prev = i
        else:
            out.append(f"{start}" if start == prev else f"{start}-{prev}")
            start = prev = i
    if start is not None:
        out.append(f"{start}" if start == prev else f"{start}-{prev}")
    return ",".join(out)


def _tile_report(a, e, bad, limit=12):
    rows, cols = a.shape
    lines = []
    shown = 0
    for tr in range(0, rows, 32):
        for tc in range(0, cols, 32):
            tb = bad[tr:tr + 32, tc:tc + 32]
            if not tb.any():
                continue
            if shown == limit:
                lines.append("  ... (more tiles differ)")
                return lines
            shown += 1
            faces = [FACES[2 * (r // 16) + c // 16] for r in (0, 16) for c in (0, 16)
                     if tb[r:r + 16, c:c + 16].any()]
            r_idx = np.nonzero(tb.any(axis=1))[0]
            c_idx = np.nonzero(tb.any(axis=0))[0]
            lines.append(f"  tile ({tr // 32},{tc // 32}): {int(tb.sum())} differ; faces {', '.join(faces)}; "
                         f"rows {_ranges(r_idx)}; cols {_ranges(c_idx)}")
            r, c = np.argwhere(tb)[0]
            lines.append(f"    first at [{r},{c}]: got {a[tr + r, tc + c]:.7g}, expected {e[tr + r, tc + c]:.7g}")
    return lines
