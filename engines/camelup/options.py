"""Table options: schema, checks, the random setup roll (R6, R7) and a frozen copy.

Option names and defaults are those of the spec's ambiguity table (CU-1 ... CU-18),
plus ``mode`` (issue 3) and ``setup``, the random outcome of the setup rolls.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engines.base import EngineError, Rng, options_schema, refusal
from engines.camelup.constants import COLOUR_WORDS, CRAZY, RACING, SPACES

FULL = "full"
PYRAMID = "pyramid"

_PAIR = {
    "type": "array",
    "prefixItems": [{"type": "string"}, {"type": "integer", "minimum": 1, "maximum": SPACES}],
    "minItems": 2,
    "maxItems": 2,
}

OPTIONS_SCHEMA: dict[str, Any] = options_schema(
    {
        "mode": {
            "enum": [FULL, PYRAMID],
            "default": FULL,
            "description": "full: 3-8 seats, turns, bets and money. pyramid: the phone is only "
            "the pyramid and the board mirror (1 seat or more, no betting or money).",
        },
        "crazyLoneCrossingEndsGame": {
            "type": "boolean",
            "default": True,
            "description": "CU-1: a crazy camel crossing the line with no racing camel on it "
            "ends the race. false: it wraps around to space destination + 16.",
        },
        "setupCrazyAssignment": {
            "enum": ["firstRollColour", "manual"],
            "default": "firstRollColour",
            "description": "CU-2: the first grey setup roll places the camel of its colour, the "
            "second the other camel. manual: white takes the first roll, black the second, and "
            "the host rearranges with set_stack.",
        },
        "finalClamp": {
            "enum": ["perCard", "net"],
            "default": "perCard",
            "description": "CU-6: the 0 floor in final scoring applies after each card "
            "(perCard) or once to each player's net result of both piles (net).",
        },
        "spectatorFlipInPlace": {
            "type": "boolean",
            "default": False,
            "description": "CU-7: true lets a player turn their tile over without moving it.",
        },
        "partnershipCopy": {
            "enum": ["auto", "ask"],
            "default": "auto",
            "description": "CU-8: auto copies the partner's best ticket if its reward is "
            "positive. ask: each partner declares their copy with copy_choice during the leg.",
        },
        "showOthersMoney": {
            "type": "boolean",
            "default": True,
            "description": "CU-14: every player's money is shown to everyone. false: only "
            "your own until the race ends.",
        },
        "showFinishCardOwners": {
            "type": "boolean",
            "default": True,
            "description": "CU-15: the finish piles show their owners in placement order. "
            "false: only their sizes. Colours are never shown before the race ends.",
        },
        "setupStackOrder": {
            "enum": ["random", "manual"],
            "default": "random",
            "description": "CU-16: camels sharing a start space are stacked in random order. "
            "manual: in colour order, for the host to rearrange with set_stack.",
        },
        "racingColours": {
            "type": "array",
            "items": {"enum": list(COLOUR_WORDS)},
            "minItems": len(RACING),
            "maxItems": len(RACING),
            "uniqueItems": True,
            "default": list(RACING),
            "description": "CU-17: the colours of the physical racing camels standing for the "
            "camels blue, green, yellow, red, purple (in that order). Display only.",
        },
        "diceSource": {
            "enum": ["app", "manual"],
            "default": "app",
            "description": "CU-18: app rolls the pyramid (pyramid action). manual: the table "
            "rolls physical dice and types the result (pyramid_manual action).",
        },
        "setup": {
            "anyOf": [
                {"type": "null"},
                {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["racing", "crazy"],
                    "properties": {
                        "racing": {"type": "array", "items": _PAIR},
                        "crazy": {"type": "array", "items": _PAIR},
                    },
                },
            ],
            "default": None,
            "description": "Random outcome of the setup rolls: [camel, space] pairs in "
            "placement order (later on top). Filled in by the server.",
        },
    },
)

DEFAULTS: dict[str, Any] = {
    key: prop["default"] for key, prop in OPTIONS_SCHEMA["properties"].items()
}


@dataclass(frozen=True)
class Options:
    mode: str = FULL
    lone_crossing_ends: bool = True
    crazy_assignment: str = "firstRollColour"
    final_clamp: str = "perCard"
    flip_in_place: bool = False
    partnership_copy: str = "auto"
    show_money: bool = True
    show_owners: bool = True
    stack_order: str = "random"
    colours: tuple[str, ...] = RACING
    dice_source: str = "app"
    racing_setup: tuple[tuple[str, int], ...] = ()
    crazy_setup: tuple[tuple[str, int], ...] = ()

    @property
    def pyramid_only(self) -> bool:
        return self.mode == PYRAMID

    def to_json(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "crazyLoneCrossingEndsGame": self.lone_crossing_ends,
            "setupCrazyAssignment": self.crazy_assignment,
            "finalClamp": self.final_clamp,
            "spectatorFlipInPlace": self.flip_in_place,
            "partnershipCopy": self.partnership_copy,
            "showOthersMoney": self.show_money,
            "showFinishCardOwners": self.show_owners,
            "setupStackOrder": self.stack_order,
            "racingColours": list(self.colours),
            "diceSource": self.dice_source,
            "setup": {
                "racing": [[c, s] for c, s in self.racing_setup],
                "crazy": [[c, s] for c, s in self.crazy_setup],
            },
        }

    @staticmethod
    def from_json(raw: dict[str, Any]) -> Options:
        opts = {**DEFAULTS, **raw}
        setup = opts["setup"] or {"racing": [], "crazy": []}
        return Options(
            mode=opts["mode"],
            lone_crossing_ends=bool(opts["crazyLoneCrossingEndsGame"]),
            crazy_assignment=opts["setupCrazyAssignment"],
            final_clamp=opts["finalClamp"],
            flip_in_place=bool(opts["spectatorFlipInPlace"]),
            partnership_copy=opts["partnershipCopy"],
            show_money=bool(opts["showOthersMoney"]),
            show_owners=bool(opts["showFinishCardOwners"]),
            stack_order=opts["setupStackOrder"],
            colours=tuple(opts["racingColours"]),
            dice_source=opts["diceSource"],
            racing_setup=tuple((c, int(s)) for c, s in setup["racing"]),
            crazy_setup=tuple((c, int(s)) for c, s in setup["crazy"]),
        )


def _bad(message: str) -> EngineError:
    return refusal("bad_options", message)


def _check_choice(opts: dict[str, Any], key: str) -> None:
    prop = OPTIONS_SCHEMA["properties"][key]
    if "enum" in prop and opts[key] not in prop["enum"]:
        raise _bad(f"Option {key} must be one of {prop['enum']}, not {opts[key]!r}.")
    if prop.get("type") == "boolean" and not isinstance(opts[key], bool):
        raise _bad(f"Option {key} must be true or false.")


def _check_pairs(pairs: Any, camels: tuple[str, ...], lo: int, hi: int, what: str) -> None:
    if not isinstance(pairs, list) or len(pairs) != len(camels):
        raise _bad(f"setup.{what} must place each of {', '.join(camels)} exactly once.")
    seen = []
    for pair in pairs:
        ok = isinstance(pair, (list, tuple)) and len(pair) == 2
        if not ok or pair[0] not in camels or not isinstance(pair[1], int):
            raise _bad(f"setup.{what}: {pair!r} is not a [camel, space] pair.")
        if not lo <= pair[1] <= hi:
            raise _bad(f"setup.{what}: {pair[0]} must start on a space from {lo} to {hi}.")
        seen.append(pair[0])
    if sorted(seen) != sorted(camels):
        raise _bad(f"setup.{what} must place each of {', '.join(camels)} exactly once.")


def normalize_options(options: dict[str, Any]) -> dict[str, Any]:
    """Fills defaults and checks what the schema cannot say; returns plain JSON."""
    unknown = set(options) - set(DEFAULTS)
    if unknown:
        raise _bad(f"Unknown option(s): {', '.join(sorted(unknown))}.")
    opts = {**DEFAULTS, **options}
    for key in DEFAULTS:
        if key not in ("racingColours", "setup"):
            _check_choice(opts, key)
    colours = opts["racingColours"]
    if (
        not isinstance(colours, list)
        or len(colours) != len(RACING)
        or len(set(colours)) != len(RACING)
        or any(c not in COLOUR_WORDS for c in colours)
    ):
        raise _bad(f"racingColours must be 5 different colours from {list(COLOUR_WORDS)}.")
    setup = opts["setup"]
    if setup is not None:
        if not isinstance(setup, dict) or set(setup) != {"racing", "crazy"}:
            raise _bad("setup must be {racing: [[camel, space], ...], crazy: [...]}.")
        # R6: a racing die shows 1-3; R7: a crazy camel goes on 17 - (1..3).
        _check_pairs(setup["racing"], RACING, 1, 3, "racing")
        _check_pairs(setup["crazy"], CRAZY, SPACES - 2, SPACES, "crazy")
        opts["setup"] = {
            "racing": [[c, s] for c, s in setup["racing"]],
            "crazy": [[c, s] for c, s in setup["crazy"]],
        }
    opts["racingColours"] = list(colours)
    return opts


#: A racing die's faces: 1, 2, 3 (each printed twice on its six sides).
FACES = (1, 2, 3)


def roll_racing(rng: Rng) -> int:
    """A racing die's face (R6, R12): the value itself is drawn, so a proof
    of the roll (docs/fairness.md) shows the very number the game moved by."""
    return rng.choice(FACES)


def roll_grey(rng: Rng) -> tuple[str, int]:
    """The grey die (W1 W2 W3 B1 B2 B3): its colour, then its value, each
    drawn as itself; two independent uniform draws give each of the six faces
    1/6, as one draw of a face did."""
    return rng.choice(CRAZY), rng.choice(FACES)


def draw_setup(options: dict[str, Any], rng: Rng) -> dict[str, Any]:
    """R6 and R7 rolled with ``rng``; an existing ``setup`` (fixed random) is kept."""
    opts = normalize_options(options)
    if opts["setup"] is not None:
        return opts
    spaces = {camel: roll_racing(rng) for camel in RACING}
    order = list(RACING)
    if opts["setupStackOrder"] == "random":
        # CU-16: shuffling the placement order stacks each space in random order.
        rng.shuffle(order)
    racing = [[camel, spaces[camel]] for camel in order]
    first_colour, first_value = roll_grey(rng)
    # The second roll's colour is drawn too (a physical grey die shows one).
    _, second_value = roll_grey(rng)
    if opts["setupCrazyAssignment"] == "firstRollColour":
        first = first_colour
    else:
        first = CRAZY[0]
    second = CRAZY[1] if first == CRAZY[0] else CRAZY[0]
    # R7: value v puts the camel on 17 - v; the second one goes on top if they meet.
    crazy = [[first, SPACES + 1 - first_value], [second, SPACES + 1 - second_value]]
    return {**opts, "setup": {"racing": racing, "crazy": crazy}}
