"""The contract every game engine implements.

An engine is pure: no Flask, Redis, clock or global randomness. The server owns
seats, tokens, versions and the action log; the engine owns the rules.

Actions reach ``apply`` as plain dicts::

    {"type": "leg_bet", "player": "p2", "host": False, "camel": "red"}

``player`` (the acting seat id) and ``host`` (whether that seat holds host
powers) are set by the server from the authenticated token and never taken
from the client. Random outcomes (a die, a dealt card) are fields of the action
too, filled in by ``draw`` before ``apply``; they are recorded in the log, so
replaying the log rebuilds the same state.

Events are public: they go into the table's history, which every seat and the
spectator can read. An event must never hold a secret.

The mechanics engines share live beside it, each by its job: ``engines.errors``
(refusals and their codes), ``engines.legality`` (``dispatch``),
``engines.seats`` (seats on paper, the stalled phone), ``engines.schema``
(JSON Schemas), and ``engines.skeleton`` builds an engine from its package's
modules. ``engines.base`` re-exports them all under one name.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Iterable, Mapping, MutableSequence, Sequence
from typing import Any, Protocol, TypeVar

from engines import codec, history
from engines.errors import EngineError
from engines.history import HistoryText, Part, Value, part

JSON = Any
Action = dict[str, Any]
Event = dict[str, Any]
T = TypeVar("T")
S = TypeVar("S")
#: An apply handler: checks everything first, then returns the new state and its events.
Handler = Callable[[S, Action], tuple[S, list[Event]]]
#: One step of a game's replay: a state and the events of the action that made it
#: (the first step is ``setup``'s state, with no events).
Step = tuple[Any, list[Event]]


def competition_ranks(keys: Mapping[str, Any]) -> dict[str, int]:
    """Standard competition ranking by ``keys`` (higher is better): players
    with equal keys share a rank, and the next rank skips as many places.

    >>> competition_ranks({"a": 7, "b": 9, "c": 7, "d": 1})
    {'a': 2, 'b': 1, 'c': 2, 'd': 4}
    """
    return {p: 1 + sum(1 for other in keys.values() if other > k) for p, k in keys.items()}


def for_seat(templates: list[Action], host_types: Collection[str], host: bool) -> list[Action]:
    """``templates`` as a seat sees them (``Engine.host_actions``); an unmarked one
    goes out as it is, not copied (a copy for every seat of every push)."""
    return [{k: v for k, v in t.items() if k != "host"} if "host" in t else t for t in templates
            if host or not (t.get("host") is True or t["type"] in host_types)]


class Rng(Protocol):
    """The subset of ``random.Random`` engines may use inside ``draw*``.

    The server passes ``secrets.SystemRandom()``; tests pass ``random.Random(seed)``.
    """

    def randrange(self, start: int, stop: int | None = ..., step: int = ...) -> int: ...
    def choice(self, seq: Sequence[T]) -> T: ...
    def shuffle(self, x: MutableSequence[Any]) -> None: ...
    def sample(self, population: Sequence[T], k: int) -> list[T]: ...


class FairHooks(Protocol):
    """A game's ``fair`` module (docs/fairness.md): what ``Engine.fair_draw``,
    ``fair_scopes``, ``fair_done`` and ``fair_secrets`` answer from."""

    def draw(self, state: Any, action: Action, /) -> tuple[str, int] | None: ...
    def refusal(self, state: Any, action: Action, /) -> EngineError | None: ...
    def scopes(self, state: Any, /) -> tuple[str, ...]: ...
    def done(self, state: Any, scope: str, /) -> bool: ...
    def secrets(self, state: Any, /) -> dict[str, tuple[Any, bool]]: ...


class Engine(ABC):
    """One game's rules. Subclasses are stateless singletons; state is a value."""

    #: Registry key and the ``game`` field of the API, e.g. ``"camelup"``.
    name: str
    #: Display names, ``{"ko": ..., "en": ...}``: the game's one title, on
    #: every screen and in BG Stats (BGG's spelling where the game has an entry).
    title: dict[str, str]
    #: BoardGameGeek's id of the game, where we confirmed one (docs/results.md);
    #: None: BG Stats matches the game by ``title["en"]``.
    bgg_id: int | None = None
    #: JSON Schema (draft 2020-12) of the table options, every property with a
    #: ``default`` and ``additionalProperties: false``. The server validates
    #: options against it and publishes it in the OpenAPI document.
    options_schema: dict[str, Any]
    #: Per action type, the JSON Schema of the payload (without ``type``,
    #: ``player``, ``host``), ``additionalProperties: false``. Random outcome
    #: fields are listed here too (they are legal only with fixed random).
    action_schemas: dict[str, dict[str, Any]]
    #: Per action type, payload fields that carry a random outcome. A client may
    #: send them only when the server runs with ``TABLEMATE_FIXED_RANDOM=1``.
    random_action_fields: dict[str, tuple[str, ...]] = {}
    #: Option names that carry a random outcome (e.g. a fixed initial board).
    random_option_fields: tuple[str, ...] = ()
    #: Action types only the host may send. ``legal_actions`` lists them as if
    #: ``player`` were the host (the engine does not know who is); the server
    #: removes them from other seats' lists. A single template may instead be
    #: marked ``"host": True`` (e.g. "call" is the host's unless the seat is the
    #: named caller); the server drops it for non-hosts and strips the marker.
    #: ``apply`` checks ``action["host"]`` either way.
    host_actions: tuple[str, ...] = ("next_round", "set_paper", "set_phone", "skip")
    #: Action types whose random outcome only the acting seat sees (a goal
    #: card dealt face down). Undone, such an outcome is kept for that seat and
    #: never dealt to another one; public outcomes (a die) go to whoever next
    #: sends that action type, as a die put back on the pyramid would.
    private_draws: tuple[str, ...] = ()
    #: Action types whose undone outcome ANY seated seat may draw again (the
    #: returned die: whoever picks it up rolls it, docs/rules/<game>.md). The
    #: server marks that action ``"returned": True`` (a phone cannot send the
    #: field: the payload schemas refuse it); ``apply`` then waives the turn
    #: check but keeps the turn order as it was.
    open_redraws: tuple[str, ...] = ()
    #: Sealed values the server must see before their reveal (a Count Up
    #: sheet), kept encrypted at rest (server/service/atrest.py): paths into
    #: the dumped state ("*": every item of a list), and per action type the
    #: fields the log keeps encrypted.
    at_rest_state: tuple[tuple[str, ...], ...] = ()
    at_rest_actions: Mapping[str, tuple[str, ...]] = {}
    #: Event types that reveal secrets (votes, sheets, final bet cards): once an
    #: action produced one, undo can no longer go back past it, so no undo chain
    #: can let anyone change a revealed choice (docs/rules/<game>.md).
    sealing_events: frozenset[str] = frozenset()
    #: Action types whose payload holds a seat's sealed choice (a vote, a
    #: locked sheet, a finish card's camel), each with the fields that hold
    #: it. The server lets no undo change another seat's: an undone one is
    #: made again on that seat's own phone, and shown once the game is over
    #: (in the words of ``describe_sealed``).
    sealed_choices: Mapping[str, tuple[str, ...]] = {}
    #: The history's lines (``engines/history.py``): event types that begin a
    #: line of their own, and those that open a round (→ the field naming it).
    history_breaks: frozenset[str] = frozenset()
    round_openers: Mapping[str, str] = {}
    #: The state's (frozen data)class: ``dump`` and ``load`` go through
    #: ``engines.codec`` with it, so a state needs no codec of its own.
    state_type: type

    @abstractmethod
    def player_limits(self, options: dict[str, Any]) -> tuple[int, int]:
        """(min, max) seats for these options."""

    def normalize_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """Checks rules the schema cannot express; returns the options to store.

        Called after schema validation with defaults already filled in.
        Raises ``EngineError("bad_options", ...)``.
        """
        return dict(options)

    def draw_setup(self, players: list[str], options: dict[str, Any], rng: Rng) -> dict[str, Any]:
        """Returns ``options`` with every random setup outcome filled in.

        Fields already present (fixed random) are kept. The returned options are
        logged with the ``start`` action, so ``setup`` itself is deterministic.
        """
        return dict(options)

    @abstractmethod
    def setup(self, players: list[str], options: dict[str, Any]) -> Any:
        """The initial state for these seats (in turn order) and options."""

    def draw(self, state: Any, action: Action, rng: Rng) -> Action:
        """Returns ``action`` with any random outcome it needs filled in.

        Called by the server before ``apply``; outcome fields already present
        (fixed random) are kept. Must not raise for illegal actions: ``apply``
        refuses those.
        """
        return action

    # -- checkable randomness and sealed choices (docs/fairness.md) ---------
    # A *scope* is named within the game ("leg/2", "round/3"): the server
    # commits to a secret per scope before its first draw, the phones add
    # seeds, and the secret is revealed once every outcome of it is public.
    # Names must be public information (equal for every secret twin).
    # A game with a ``fair`` module (``FairHooks``) names it here and the four
    # hooks below answer from it; without one it draws nothing checkable.
    fair: FairHooks | None = None

    def fair_draw(self, state: Any, action: Action) -> tuple[str, int] | None:
        """The scope and the outcome index in it that ``draw`` takes
        ``action``'s outcome from; None when it draws nothing. An undone
        action sent again in the state it undid names the same pair."""
        return None if self.fair is None else self.fair.draw(state, action)

    def fair_refusal(self, state: Any, action: Action) -> EngineError | None:
        """What ``apply`` refuses ``action`` with, an action ``fair_draw``
        names a scope for, whatever its outcome: the same checks, in the
        same order, with nothing drawn. The server asks the phones for their
        links only for an action ``apply`` will take."""
        return None if self.fair is None else self.fair.refusal(state, action)

    def fair_scopes(self, state: Any) -> tuple[str, ...]:
        """The scopes whose draws are still to come in ``state``: each is
        opened (its commitment shown, seeds taken) before it draws."""
        return () if self.fair is None else self.fair.scopes(state)

    def fair_done(self, state: Any, scope: str) -> bool:
        """Whether every outcome ``scope`` will ever give is drawn and public
        in ``state``, so its secret may be revealed (never for a scope ahead
        of ``state``: an undo may have gone back before it)."""
        return False if self.fair is None else self.fair.done(state, scope)

    def fair_secrets(self, state: Any) -> dict[str, tuple[Any, bool]]:
        """The choices seats locked in secret in ``state`` (a sheet, a vote):
        name → (value, whether it is public now). The server seals each when
        it appears and reveals the game's value when it becomes public.
        Value None: sealed on its phone, which alone holds it until it opens
        it (the hooks below); the server holds only the hash."""
        return {} if self.fair is None else self.fair.secrets(state)

    # Seals made on the phone (issue 38): a game whose rules let a choice stay
    # on its phone until its reveal gives its ``fair`` module these three.

    def fair_phone_seal(self, state: Any, action: Action) -> str | None:
        """The name of the seal a phone makes with ``action`` (its hash in
        the payload), or None."""
        hook = getattr(self.fair, "phone_seal", None)
        return None if hook is None else hook(state, action)

    def fair_phone_opening(self, state: Any, action: Action) -> tuple[str, Any] | None:
        """The seal ``action`` opens, by name, and the value it claims."""
        hook = getattr(self.fair, "phone_opening", None)
        return None if hook is None else hook(state, action)

    def fair_to_seal(self, state: Any) -> dict[str, str]:
        """The seats that may make a phone seal now → its name."""
        hook = getattr(self.fair, "to_seal", None)
        return {} if hook is None else hook(state)

    def fair_seal_required(self, state: Any, action: Action) -> str | None:
        """The name of the phone seal ``action``, a choice sent as it is in
        ``state``, had to be (its sender would show the server a value the
        rules keep on the phone until its reveal), or None: fine as sent."""
        hook = getattr(self.fair, "seal_required", None)
        return None if hook is None else hook(state, action)

    @abstractmethod
    def legal_actions(self, state: Any, player: str | None) -> list[Action]:
        """What ``player`` may do now, as action templates: ``{"type": ...}``
        plus the choices, e.g. ``{"type": "leg_bet", "camel": "red"}``. The UI
        enables buttons from this list. Empty for spectators."""

    def offered(self, state: Any, player: str, host: bool) -> list[Action]:
        """``legal_actions`` as a snapshot lists them (``for_seat``); ``Offers.offered``
        builds a guest's without the host's templates (most seats are guests)."""
        return for_seat(self.legal_actions(state, player), self.host_actions, host)

    def sample(self, state: Any, player: str, template: Action, rng: Rng) -> Action | None:
        """Completes a ``legal_actions`` template that needs free input from
        the phone (five numbers, a goal card) with a random valid choice, or
        None when it cannot. Random play-outs and load tests use it; the server
        never does. Complete templates are returned unchanged."""
        return template

    @abstractmethod
    def apply(self, state: Any, action: Action) -> tuple[Any, list[Event]]:
        """Returns the new state and the (public) events. Never mutates
        ``state``. Raises ``EngineError`` and changes nothing when refused."""

    def seals(self, events: Sequence[Event]) -> bool:
        """Whether the action that produced ``events`` revealed a secret, so
        undo can no longer go back past it: by default, when one of them is in
        ``sealing_events``. A game whose reveal depends on an event's fields
        (a called number someone wrote) says so here."""
        return any(e["type"] in self.sealing_events for e in events)

    def waiting(self, state: Any) -> tuple[str, ...]:
        """The seats whose input the game needs now before it can go on, in
        seat order: a simultaneous phase's missing entries (votes, sheets), or
        the seat whose turn it is. Public information only: two states that
        differ only in secrets give the same seats. A step only the host takes
        (the next round) names nobody. Every view carries it as ``waiting``."""
        return ()

    def paper_seats(self, state: Any) -> tuple[str, ...]:
        """The seats ``set_paper`` marked, in the order they were marked."""
        paper: tuple[str, ...] = getattr(state, "paper", ())
        return paper

    @abstractmethod
    def view(self, state: Any, player: str | None) -> dict[str, Any]:
        """What ``player`` may see (``None``: spectator), built field by field."""

    def viewer(self, state: Any) -> Callable[[str | None], dict[str, Any]]:
        """``view`` of ``state`` for one seat after another (a push builds every
        seat's): a game may build what all seats see once and share it. The
        views it gives must equal ``view``'s, and no seat's may alter what
        another's shares (the objects are the same in every seat's view)."""
        return lambda player: self.view(state, player)

    def analysis(self, state: Any, player: str | None) -> dict[str, Any] | None:
        """Optional advice computed from public information (e.g. exact odds),
        served on demand by ``GET /api/tables/<id>/analysis``, never pushed.
        None when the game has none or nothing to analyse now."""
        return None

    def analysis_viewer(self, state: Any, player: str | None) -> str | None:
        """Whose analysis ``player`` gets. Phones that would get the same answer
        return the same viewer and share one computation (e.g. None when the
        analysis does not depend on the seat)."""
        return player

    def result(self, state: Any, steps: Iterable[Step]) -> dict[str, Any] | None:
        """The finished game's result from public information only, None
        while it runs (or for a game without one). ``steps`` replays the game
        (``setup``'s state, then each applied action's state and events, undone
        actions left out): lazy, so a game that keeps every figure it needs in
        its state need not read it. The shape (``GameResult`` in
        ``server/model.py``)::

            {"players": [{"id", "score", "rank", "winner", ...}],  # seat order
             "rounds": [{...}, ...], "start_player": id | None, ...}

        ``score`` is the game's own final figure, ``rank`` is shared by ties
        (``competition_ranks``) and ``winner`` follows the game's tie-breaks."""
        return None

    @abstractmethod
    def public_players(self, state: Any) -> dict[str, dict[str, Any]]:
        """Public per-seat figures merged into the API's ``players`` entries
        (e.g. ``{"p1": {"money": 3}}``)."""

    @abstractmethod
    def status(self, state: Any) -> dict[str, Any]:
        """``{"round": int, "over": bool}``: the history groups by ``round``;
        ``over`` ends the table's play."""

    @abstractmethod
    def describe(self, event: Event, names: dict[str, str]) -> list[Part]:
        """One event as history parts: keys of the game's ``strings.js``
        (``<game>.history.*``) or the platform's, with plain values
        (``engines.history.Part``); ``names`` maps player ids to display names."""

    def describe_sealed(self, action: Action, events: list[Event]) -> Value | None:
        """The sealed choice ``action`` held, worded as the game's lines are
        (``engines.history.Value``: a camel's colour, a vote) for its undone
        line once the game is over; ``events``: what the action made. None:
        it held none. By default the plain values (several fields: a list)."""
        values = [action[f] for f in self.sealed_choices.get(str(action.get("type")), ())
                  if action.get(f) is not None]
        return None if not values else values[0] if len(values) == 1 else values

    def history_lines(self, events: list[Event], names: dict[str, str]) -> list[HistoryText]:
        """One action's events as lines of history, each in its round."""
        return history.lines(events, self.history_breaks, self.round_openers,
                             lambda ev: self.describe(ev, names))

    def stretch(self, first: int, last: int, by: str, then: bool) -> Part:
        """Numbers ``first``-``last`` counted aloud by ``by``, as one line (a
        game whose lines carry ``count`` words it); ``then``: the call that
        ends the stretch follows on the same line."""
        return part("history.stretch_then" if then else "history.stretch",
                    span=f"{first}–{last}" if last > first else str(first))

    def dump(self, state: Any) -> JSON:
        """A JSON-serializable value; ``load(dump(s)) == s``."""
        return codec.dump(state)

    def load(self, data: JSON) -> Any:
        """The state ``dump`` produced."""
        return codec.load(self.state_type, data)
