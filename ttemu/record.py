"""Small value classes for the start-up path, without ``dataclasses``.

``@dataclass`` writes and compiles an ``__init__``, ``__repr__`` and ``__eq__`` for each
class when its module is imported (about 0.5 ms a class), and ``import dataclasses``
itself pulls in ``inspect`` (a few ms more per process). A :class:`Record` subclass is
written like a dataclass and behaves like one:

    class Region(Record, frozen=True):
        name: str
        base: int
        size: int = 0
        tags: list = Factory(list)            # field(default_factory=list)
        raw: dict = Factory(dict, repr=False)  # field(default_factory=dict, repr=False)

Its fields are the annotated names, in order, stored in ``__slots__``; ``__init__``
takes them positionally or by name, defaults as given. ``frozen=True``: assigning a
field raises ``AttributeError`` and the record hashes by its fields (a frozen
dataclass); ``eq=False``: identity comparison and hashing; otherwise records of the
same class compare by their fields and are unhashable (a plain dataclass).
"""

from __future__ import annotations


class Factory:
    """A default made by calling ``fn`` for each instance (``field(default_factory=fn)``)."""

    __slots__ = ("fn", "repr")

    def __init__(self, fn, repr=True):
        self.fn = fn
        self.repr = repr


class _RecordMeta(type):
    def __new__(mcls, name, bases, ns, frozen=False, eq=True):
        if not bases:  # Record itself
            return super().__new__(mcls, name, bases, ns)
        own = tuple(ns.get("__annotations__", {}))
        defaults, norepr = {}, []
        for f in own:
            if f in ns:
                value = ns.pop(f)
                defaults[f] = value
                if type(value) is Factory and not value.repr:
                    norepr.append(f)
        ns["__slots__"] = own
        cls = super().__new__(mcls, name, bases, ns)
        parent = cls.__mro__[1]
        cls._fields = parent._fields + own
        cls._defaults = {**parent._defaults, **defaults}
        hidden = set(parent._fields) - set(parent._repr_fields) | set(norepr)
        cls._repr_fields = tuple(f for f in cls._fields if f not in hidden)
        if frozen:
            cls.__setattr__ = _frozen_setattr
            cls.__delattr__ = _frozen_delattr
            cls.__hash__ = _field_hash
        elif not eq:
            cls.__eq__ = object.__eq__
            cls.__hash__ = object.__hash__
        else:
            cls.__hash__ = None
        return cls

    def __init__(cls, name, bases, ns, frozen=False, eq=True):
        super().__init__(name, bases, ns)


class Record(metaclass=_RecordMeta):
    __slots__ = ()
    _fields: tuple = ()
    _defaults: dict = {}
    _repr_fields: tuple = ()

    def __init__(self, *args, **kw):
        names = self._fields
        if len(args) > len(names):
            raise TypeError(f"{type(self).__name__}() takes {len(names)} positional arguments "
                            f"but {len(args)} were given")
        put = object.__setattr__
        for name, value in zip(names, args):
            put(self, name, value)
        for name in names[len(args):]:
            if name in kw:
                value = kw.pop(name)
            else:
                try:
                    value = self._defaults[name]
                except KeyError:
                    raise TypeError(f"{type(self).__name__}() missing required argument: {name!r}") from None
                if type(value) is Factory:
                    value = value.fn()
            put(self, name, value)
        if kw:
            name = next(iter(kw))
            what = "got multiple values for argument" if name in names else "got an unexpected keyword argument"
            raise TypeError(f"{type(self).__name__}() {what} {name!r}")

    def _values(self):
        return tuple(getattr(self, n) for n in self._fields)

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return self._values() == other._values()
        return NotImplemented

    def __repr__(self):
        inner = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._repr_fields)
        return f"{type(self).__qualname__}({inner})"


def _frozen_setattr(self, name, value):
    raise AttributeError(f"cannot assign to field {name!r}")


def _frozen_delattr(self, name):
    raise AttributeError(f"cannot delete field {name!r}")


def _field_hash(self):
    return hash(self._values())
