"""Warnings a run collects: behaviour the ISA documentation leaves undefined (or to
software) that real code may still do, reported once per site with a count.

A *site* is a stable key: the thread (or core) and what happened (mnemonic and
condition, e.g. ``t0 SETC16 CfgIndex>=THD_STATE_SIZE``), so a loop that does it a
million times is one line in the summary. The first text of a site says where (thread,
instruction), what the documentation says and what ttemu does instead; every such
case and its chosen behaviour is listed in docs/undefined-behaviour.md. With
``strict`` the first occurrence stops the run as :class:`~ttemu.errors.UndefinedBehaviour`
(``ttemu run --strict``, exit 5)."""

from __future__ import annotations

from .errors import UndefinedBehaviour


class Diagnostics:
    def __init__(self, strict: bool = False):
        self.strict = strict
        self.sites: dict[str, list] = {}  # site -> [first text, count, kind]

    def undefined(self, site: str, text: str) -> None:
        """Behaviour the docs call undefined: a warning, or an error when strict."""
        if self.strict:
            raise UndefinedBehaviour(text + " (--strict: stopped here instead)")
        self._note(site, text, "undefined behaviour")

    def again(self, site: str) -> bool:
        """Count one more occurrence of a site already reported (cheap: callers skip
        building its text). False if the site is new, or when strict."""
        entry = self.sites.get(site)
        if entry is None or self.strict:
            return False
        entry[1] += 1
        return True

    def warn(self, text: str, site: str | None = None) -> None:
        """Something worth knowing that is not undefined (e.g. a write racing a MOP)."""
        self._note(site or text, text, "warning")

    def _note(self, site, text, kind):
        entry = self.sites.get(site)
        if entry is None:
            self.sites[site] = [text, 1, kind]
        else:
            entry[1] += 1

    @property
    def texts(self) -> list:
        return [text for text, _, _ in self.sites.values()]

    def lines(self) -> list:
        """One line per site, for the summary."""
        out = []
        for text, count, kind in self.sites.values():
            out.append(f"{kind}: {text}" + (f" ({count} times)" if count > 1 else ""))
        return out

    def as_json(self) -> list:
        return [{"kind": kind, "text": text, "count": count} for text, count, kind in self.sites.values()]
