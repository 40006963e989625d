"""Who may send what, written once per game: the offers (``legal_actions``)
are the candidate templates that pass the very checks the handlers make.

Each action type has a *gate*: its handler's checks that need no free input
(who may send it, when, and the fields a template names: which camel, which
seat). A handler calls its gate first, then checks its free input (five
numbers, a goal card) and builds the new state. ``Offers`` lists, for a seat,
the game's *candidates* (every template the seat could send, by shape: no
rules) whose gate lets them through. So a rule changed in a gate changes the
refusal and the phone's buttons together (``tests/engines/test_legality.py``
checks both directions on random play).

A check *returns* its refusal (None: accepted) rather than raising it:
offers are built for every seat at every change, and most candidates are
refused, where a raise and catch through a few frames costs more than the
rest of the check. Calling a ``Rule`` raises, for the handlers.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic

from engines.contract import Action, Event, Handler, S, for_seat
from engines.errors import EngineError, refusal

#: Checks that need no free input: the refusal, or None when they pass.
Gate = Callable[[S, Action], EngineError | None]
Refused = EngineError | None
#: The fields a seat's templates of one action type name, by shape only.
Choices = Callable[[S, str], Iterable[Action]]


def _bare(state: Any, player: str) -> Iterable[Action]:
    return ({},)


@dataclass(frozen=True)
class Rule(Generic[S]):
    """When one action type is legal, in two steps so offers stay cheap:
    ``when`` checks the type for the seat (who, when); ``pick`` checks the
    fields a template names (which seat, which number), for each of
    ``choices``. Calling the rule runs both: a handler's first line.

    >>> def when(state: int, action: Action) -> EngineError | None:
    ...     return None if action.get("host") is True else refusal("not_host")
    >>> def pick(state: int, action: Action) -> EngineError | None:
    ...     return refusal("wrong_phase") if action["n"] > state else None
    >>> rule = Rule(when, lambda state, p: [{"n": n} for n in (1, 2, 3)], pick)
    >>> Offers({"pick": rule}, lambda state, p: ["pick"])(2, "p1")
    [{'type': 'pick', 'n': 1, 'host': True}, {'type': 'pick', 'n': 2, 'host': True}]
    >>> rule(2, {"type": "pick", "n": 3, "player": "p1", "host": True})
    Traceback (most recent call last):
    ...
    engines.errors.EngineError: Not possible at this point of the game.
    """

    when: Gate[S]
    choices: Choices[S] = _bare
    pick: Gate[S] | None = None
    #: ``choices`` lists exactly what ``pick`` takes from any seat ``when``
    #: lets through (both ask the same function, as King Up's castle moves):
    #: Offers does not check them again.
    exact: bool = False
    #: Its templates are the same for every seat (a host's action naming no
    #: acting seat: which seat goes back to its phone): Offers builds them
    #: once per state, not once per seat.
    shared: bool = False

    def __call__(self, state: S, action: Action) -> None:
        refused = self.when(state, action)
        if refused is None and self.pick is not None:
            refused = self.pick(state, action)
        if refused is not None:
            raise refused


@dataclass(frozen=True)
class Offers(Generic[S]):
    """A game's ``legal_actions``, derived from its rules: for each action
    type ``types(state, player)`` names (a seat on paper sends fewer), the
    templates whose rule lets them through.

    A template refused only for want of host powers (its rule raised one of
    ``host_codes`` as the seat, and passes as the host) is offered marked
    ``"host": True`` (the server keeps it for the host alone), unless its
    type is one of ``host_types``, the engine's ``host_actions``, which the
    server filters by type. Each check runs as the seat first, and again as
    the host only when the seat was refused for want of host powers: one
    check for most templates (the host may send whatever a seat may).
    """

    rules: Mapping[str, Rule[Any]]
    types: Callable[[S, str], Iterable[str]]
    host_types: Collection[str] = ()
    host_codes: Collection[str] = ("not_host",)
    #: The last state asked and its shared rules' templates by type (the
    #: server asks for every seat of one state in turn); one tuple, replaced
    #: whole, so a thread never reads another state's templates.
    _memo: list[tuple[Any, dict[str, list[Action]]]] = field(
        default_factory=lambda: [(None, {})], compare=False, repr=False
    )

    def __call__(self, state: S, player: str) -> list[Action]:
        memo = self._memo[0]
        if memo[0] is not state:
            memo = self._memo[0] = (state, {})
        out: list[Action] = []
        for kind in self.types(state, player):
            rule = self.rules[kind]
            if not rule.shared:
                out += self._templates(kind, rule, state, player)
                continue
            built = memo[1].get(kind)
            if built is None:
                built = memo[1][kind] = self._templates(kind, rule, state, player)
            out += [dict(t) for t in built]
        return out

    def offered(self, state: S, player: str, host: bool, host_types: Collection[str]) -> list[Action]:
        """``self(state, player)`` as the server offers it (``for_seat``;
        ``host_types``: the engine's ``host_actions``). For a guest, a type it
        would lose is not built: no ``host_types``, no type its rule takes
        from the host only, no shared template marked for the host. Every
        seat is asked at every change, most of them guests."""
        if host:
            return for_seat(self(state, player), host_types, True)
        memo = self._memo[0]
        if memo[0] is not state:
            memo = self._memo[0] = (state, {})
        out: list[Action] = []
        for kind in self.types(state, player):
            if kind in host_types:
                continue
            rule = self.rules[kind]
            if not rule.shared:
                out += [t for t in self._templates(kind, rule, state, player, guest=True) if "host" not in t]
                continue
            built = memo[1].get(kind)
            if built is None:
                built = memo[1][kind] = self._templates(kind, rule, state, player)
            out += [dict(t) for t in built if "host" not in t]
        return out

    def _templates(self, kind: str, rule: Rule[S], state: S, player: str, guest: bool = False) -> list[Action]:
        marked = self._passes(rule.when, state, {"type": kind, "player": player, "host": False})
        if marked is None or (guest and marked):
            return []
        pick = None if rule.exact else rule.pick
        if pick is None:
            # Nothing to check per choice: most of a turn's offers (a Camel
            # Up turn lists some thirty), so built in one comprehension.
            if marked and kind not in self.host_types:
                return [{"type": kind, **choice, "host": True} for choice in rule.choices(state, player)]
            return [{"type": kind, **choice} for choice in rule.choices(state, player)]
        out: list[Action] = []
        for choice in rule.choices(state, player):
            action = {**choice, "type": kind, "player": player, "host": marked}
            picked = self._passes(pick, state, action)
            if picked is None:
                continue
            host = picked or marked
            template = {"type": kind, **choice}
            if host and kind not in self.host_types:
                template["host"] = True
            out.append(template)
        return out

    def _passes(self, gate: Gate[S], state: S, action: Action) -> bool | None:
        """None when ``gate`` refuses ``action`` even from the host, True
        when it takes it from the host only, False when as sent (``host``
        False: from the seat itself; True: the host's already)."""
        refused = gate(state, action)
        if refused is None:
            return action["host"] is True
        if action["host"] is True or refused.code not in self.host_codes:
            return None
        action["host"] = True
        return None if gate(state, action) is not None else True


def refused_by(step: Callable[[], object]) -> EngineError | None:
    """The refusal ``step`` raises, or None: an action's checks asked without
    acting on it (each game's ``draw_refusal``: what ``apply`` refuses a draw
    with before its outcome is drawn)."""
    try:
        step()
    except EngineError as exc:
        return exc
    return None


def checker(rules: Mapping[str, Rule[S]]) -> Callable[[S, Action], None]:
    """A game's handlers' first check: the rule of the action's type in
    ``rules`` (raises its refusal), so no handler names its rule twice."""

    def check(state: S, action: Action) -> None:
        rules[action["type"]](state, action)

    return check


def dispatch(
    handlers: Mapping[str, Handler[S]],
    state: S,
    action: Any,
    *,
    game: str,
    seats: Collection[str],
    over: bool,
    host_first: Collection[str] = (),
) -> tuple[S, list[Event]]:
    """Runs the handler of ``action["type"]`` after the checks every game makes,
    in this order: a known type (``bad_action``), a seated player
    (``not_seated``) and a game still running (``game_over``). Once the game
    is over, a non-host sending one of ``host_first`` hears ``not_host``
    instead (e.g. the platform's next-round button on a guest's phone)."""
    kind = action.get("type") if isinstance(action, dict) else None
    handler = handlers.get(kind) if isinstance(kind, str) else None
    if handler is None:
        raise refusal("bad_action", f"{game} has no action {kind!r}.")
    player = action.get("player")
    if not isinstance(player, str) or player not in seats:
        raise refusal("not_seated", f"{player!r} has no seat at this table.")
    if over:
        if kind in host_first and action.get("host") is not True:
            raise refusal("not_host", f"Only the host may send {kind}.")
        raise refusal("game_over")
    return handler(state, action)
