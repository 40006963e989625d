"""Name → engine. The server looks games up here and nowhere else."""

from __future__ import annotations

from engines.base import Engine

_ENGINES: dict[str, Engine] = {}


def register(engine: Engine) -> Engine:
    _ENGINES[engine.name] = engine
    return engine


def get(name: str) -> Engine | None:
    return _ENGINES.get(name)


def names() -> list[str]:
    return sorted(_ENGINES)


def _register_builtin() -> None:
    # Imported here, not at module top, so a game package can import this
    # module without a cycle.
    import engines.camelup
    import engines.countup
    import engines.kingup

    for module in (engines.camelup, engines.countup, engines.kingup):
        register(module.ENGINE)


_register_builtin()
