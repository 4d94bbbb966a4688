"""The coprocessor reads each handler's parameters from its code object (a cheap
start-up); it must say what ``inspect.signature`` says, for every handler of both arches
and for the kinds of callables it falls back on."""

import functools
import inspect

import pytest

from ttemu import Tile
from ttemu.tensix.coprocessor import _field_params


def _by_inspect(fn):
    params = list(inspect.signature(fn).parameters.values())[1:]
    names = {p.name for p in params if p.kind is not p.VAR_KEYWORD}
    required = {p.name for p in params if p.default is p.empty and p.kind is not p.VAR_KEYWORD}
    return names, required, any(p.kind is p.VAR_KEYWORD for p in params)


@pytest.mark.parametrize("arch", ["wormhole_b0", "blackhole"])
def test_every_handler_as_inspect_says(arch):
    cop = Tile(arch).tensix
    seen = 0
    for unit in cop.units:
        for name, fn in unit.ops().items():
            assert _field_params(fn) == _by_inspect(fn), name
            seen += 1
    assert seen > 100


class _U:
    def plain(self, t, a, b=1, *, c, d=2):
        pass

    def anykw(self, t, a, **fields):
        pass

    def star(self, t, *args):
        pass

    @staticmethod
    def static(t, x):
        pass


def _wrapping(fn):
    @functools.wraps(fn)
    def run(self, t, **fields):
        return fn(self, t, **fields)
    return run


_U.wrapped = _wrapping(_U.plain)


def test_shapes_of_callables():
    u = _U()
    for fn in (u.plain, u.anykw, u.wrapped, u.static, _U.plain):
        assert _field_params(fn) == _by_inspect(fn), fn
    assert _field_params(u.plain) == ({"a", "b", "c", "d"}, {"a", "c"}, False)
    assert _field_params(u.star) is None  # *args: left to inspect
    assert _field_params(functools.partial(_U.plain, u)) is None
