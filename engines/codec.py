"""JSON for engine states: ``dump`` and ``load`` driven by the type hints.

A state is a tree of frozen dataclasses, tuples, ``StrEnum``s, dicts, optional
values and JSON scalars. ``dump`` turns it into plain JSON (a dataclass into an
object of its fields, a tuple into a list); ``load(tp, data)`` rebuilds the
annotated type ``tp``, so ``load(type(s), dump(s)) == s``.

Two ways to choose a shape other than an object of fields, both kept because
states already stored in Redis use them:

* ``@positional`` on a small record dumps it as a list of its fields in order
  (``Roll("red", 2, None, "red")`` is ``["red", 2, null, "red"]``);
* a class with ``to_json()`` and a static or class method ``from_json(raw)``
  writes and reads itself (e.g. options stored in their option-schema form).

A field missing from stored data takes its dataclass default, so a field added
with a default can still read states written before it.

    >>> from dataclasses import dataclass
    >>> @positional
    ... @dataclass(frozen=True)
    ... class Move:
    ...     camel: str
    ...     to: int
    >>> @dataclass(frozen=True)
    ... class Log:
    ...     moves: tuple[Move, ...]
    ...     last: Move | None = None
    >>> dump(Log((Move("red", 3),)))
    {'moves': [['red', 3]], 'last': None}

and ``load(Log, {"moves": [["red", 3]]})`` gives that ``Log`` back (``last``
from its default).
"""

from __future__ import annotations

import dataclasses
import enum
import types
from collections.abc import Callable
from typing import Any, TypeVar, Union, get_args, get_origin, get_type_hints

T = TypeVar("T")
JSON = Any
_Decoder = Callable[[JSON], Any]
_Encoder = Callable[[Any], JSON]

_POSITIONAL = "__codec_positional__"

#: ``dataclasses.field`` metadata: the field is left out of ``dump`` while it
#: holds its default, so adding it keeps the JSON of every state that never
#: uses it byte for byte what it was (``load`` fills the default back in).
OMIT_DEFAULT: dict[str, Any] = {"codec": "omit_default"}


def positional(cls: type[T]) -> type[T]:
    """Marks a dataclass to be dumped as a list of its fields in order."""
    setattr(cls, _POSITIONAL, True)
    return cls


# --- dump -------------------------------------------------------------------------------

_ENCODERS: dict[type, _Encoder | None] = {}

#: Annotations whose values dump as themselves: a field of one of these types
#: needs no call at all (``_typed``).
_SCALARS: frozenset[Any] = frozenset({str, int, float, bool, type(None)})


def _encoder(t: type) -> _Encoder | None:
    """How to dump a value of type ``t``; None for a JSON scalar (cached: states
    are dumped on every applied action)."""
    try:
        return _ENCODERS[t]
    except KeyError:
        pass
    enc: _Encoder | None = None
    if t is tuple or t is list:

        def enc(value: Any) -> JSON:
            return [dump(v) for v in value]

    elif t is dict:

        def enc(value: Any) -> JSON:
            return {k: dump(v) for k, v in value.items()}

    elif issubclass(t, enum.Enum):

        def enc(value: Any) -> JSON:
            return value.value

    elif callable(getattr(t, "to_json", None)):

        def enc(value: Any) -> JSON:
            return value.to_json()

    elif dataclasses.is_dataclass(t):
        enc = _dataclass_encoder(t)

    _ENCODERS[t] = enc
    return enc


def _dataclass_encoder(t: type) -> _Encoder:
    """A dataclass's encoder, each field dumped as its annotation says (a field
    annotated ``int`` or ``tuple[str, ...]`` costs no call per item): a state
    is dumped on every action, and dumped value by value it took two to three
    times as long (bench/codec.py; the annotated codec row of
    docs/performance.md). A field whose annotation is not one the codec knows
    (``Any``, a forward reference it cannot resolve) is dumped by its value's
    type, as ``dump`` does."""
    try:
        hints = get_type_hints(t)
    except Exception:  # noqa: BLE001 - unresolvable annotations: by value only
        hints = {}
    fields = dataclasses.fields(t)
    parts = tuple((f.name, _typed(hints.get(f.name, Any))) for f in fields)
    if getattr(t, _POSITIONAL, False):

        def as_list(value: Any) -> JSON:
            return [getattr(value, n) if e is None else e(getattr(value, n)) for n, e in parts]

        return as_list
    omit = {f.name: f.default for f in fields if f.metadata.get("codec") == "omit_default"}
    if omit:

        def leaving_defaults(value: Any) -> JSON:
            out = {}
            for n, e in parts:
                v = getattr(value, n)
                if n not in omit or v != omit[n]:
                    out[n] = v if e is None else e(v)
            return out

        return leaving_defaults

    def as_object(value: Any) -> JSON:
        return {n: getattr(value, n) if e is None else e(getattr(value, n)) for n, e in parts}

    return as_object


def _typed(tp: Any) -> _Encoder | None:
    """How to dump a value annotated ``tp``; None: it is its own JSON. Only
    scalars and containers are taken from the annotation (the engines' states
    are checked against ``dump``'s by-value result in tests/engines/test_codec.py);
    a record, an enum or anything else is dumped by its value's own type, as
    ``dump`` does (a subclass has its own fields)."""
    if tp in _SCALARS:
        return None
    origin = get_origin(tp)
    args = get_args(tp)
    if origin in (Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        if len(inner) != 1:
            return dump
        item = _typed(inner[0])
        return None if item is None else _optional(item)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            item = _typed(args[0])
            return list if item is None else _each(item)
        items = [_typed(a) for a in args]
        return list if all(i is None for i in items) else _fixed(items)
    if origin is dict and len(args) == 2:
        item = _typed(args[1])
        return dict if item is None else _values(item)
    return dump


def _optional(item: _Encoder) -> _Encoder:
    return lambda v: None if v is None else item(v)


def _each(item: _Encoder) -> _Encoder:
    return lambda v: [item(x) for x in v]


def _fixed(items: list[_Encoder | None]) -> _Encoder:
    return lambda v: [x if i is None else i(x) for i, x in zip(items, v, strict=True)]


def _values(item: _Encoder) -> _Encoder:
    return lambda v: {k: item(x) for k, x in v.items()}


def dump(value: Any) -> JSON:
    """``value`` as plain JSON data (dicts, lists, scalars)."""
    enc = _encoder(type(value))
    return value if enc is None else enc(value)


# --- load -------------------------------------------------------------------------------

_DECODERS: dict[Any, _Decoder] = {}


def _identity(data: JSON) -> Any:
    return data


def _new(cls: type[T], fields: dict[str, Any]) -> T:
    """A frozen dataclass from complete, checked fields, without the per-field
    ``object.__setattr__`` of the generated ``__init__`` (states are loaded on
    every request). Our state classes have no ``__post_init__`` and no slots."""
    obj = object.__new__(cls)
    obj.__dict__.update(fields)
    return obj


def _dataclass_decoder(cls: type) -> _Decoder:
    hints = get_type_hints(cls)
    parts: list[tuple[str, _Decoder]] = []
    defaults: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            defaults[f.name] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            defaults[f.name] = f.default_factory
    if getattr(cls, _POSITIONAL, False):

        def dec(data: JSON) -> Any:
            return _new(cls, {n: d(v) for (n, d), v in zip(parts, data, strict=True)})

    else:

        def dec(data: JSON) -> Any:
            out: dict[str, Any] = {}
            for n, d in parts:
                if n in data:
                    out[n] = d(data[n])
                elif n in defaults:
                    default = defaults[n]
                    out[n] = default() if callable(default) else default
                else:
                    raise KeyError(f"{cls.__name__}.{n} is missing")
            return _new(cls, out)

    # Cached before the fields are resolved, so that a recursive type finds itself.
    _DECODERS[cls] = dec
    parts.extend((f.name, _decoder(hints[f.name])) for f in dataclasses.fields(cls))
    return dec


def _decoder(tp: Any) -> _Decoder:
    """A function turning ``dump`` output back into the annotated type ``tp``."""
    cached = _DECODERS.get(tp)
    if cached is not None:
        return cached
    origin = get_origin(tp)
    args = get_args(tp)
    dec: _Decoder
    if origin in (Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        if len(inner) != 1 or len(args) != 2:
            raise TypeError(f"only X | None unions can be loaded, not {tp}")
        inner_dec = _decoder(inner[0])

        def dec(data: JSON) -> Any:
            return None if data is None else inner_dec(data)

    elif origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        item = _decoder(args[0])

        def dec(data: JSON) -> Any:
            return tuple([item(v) for v in data])

    elif origin is tuple:
        items = [_decoder(a) for a in args]

        def dec(data: JSON) -> Any:
            return tuple([d(v) for d, v in zip(items, data, strict=True)])

    elif origin is dict:
        value_dec = _decoder(args[1])

        def dec(data: JSON) -> Any:
            return {k: value_dec(v) for k, v in data.items()}

    elif isinstance(tp, type) and issubclass(tp, enum.Enum):
        dec = tp
    elif isinstance(tp, type) and callable(from_json := getattr(tp, "from_json", None)):
        dec = from_json
    elif isinstance(tp, type) and dataclasses.is_dataclass(tp):
        dec = _dataclass_decoder(tp)
    else:
        dec = _identity
    _DECODERS[tp] = dec
    return dec


def load(tp: type[T], data: JSON) -> T:
    """The inverse of ``dump`` for the annotated type ``tp``."""
    out: T = _decoder(tp)(data)
    return out
