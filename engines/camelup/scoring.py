"""Leg scoring (R32, with partnership copies and the 0 floor) and final scoring
(R36-R40: winner pile, then loser pile, card by card)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engines.camelup.constants import finish_pay
from engines.camelup.state import Copy, LegReport, PileCard, PlayerLeg, Seat, TicketReward

PYRAMID_REWARD = 1


def bet_reward(camel: str, value: int, ranking: Sequence[str]) -> TicketReward:
    """R32: ``value`` if the camel is 1st, +1 if 2nd, -1 otherwise.

    >>> bet_reward("red", 5, ("yellow", "red", "blue", "green", "purple")).reward
    1
    """
    place = ranking.index(camel) + 1
    reward = value if place == 1 else 1 if place == 2 else -1
    return TicketReward("bet", camel, value, place, reward)


def pyramid_reward() -> TicketReward:
    return TicketReward("pyramid", None, PYRAMID_REWARD, None, PYRAMID_REWARD)


def own_rewards(seat: Seat, ranking: Sequence[str]) -> tuple[TicketReward, ...]:
    """Every ticket the seat holds with its reward: bets in the order taken,
    then one line per pyramid ticket."""
    bets = tuple(bet_reward(camel, value, ranking) for camel, value in seat.bets)
    return bets + (pyramid_reward(),) * seat.pyramid_tickets


def _best(tickets: Sequence[TicketReward]) -> TicketReward | None:
    # CU-8: the highest reward, and only if it gains something.
    best = max(tickets, key=lambda t: t.reward, default=None)
    return best if best is not None and best.reward > 0 else None


def pick_copy(
    choice: Copy | None, mode: str, partner_tickets: Sequence[TicketReward]
) -> TicketReward | None:
    """The partner ticket whose reward is copied (R32, CU-8), or None.

    ``auto`` always takes the best; ``ask`` follows the declared choice and
    copies nothing when none was declared.
    """
    if mode == "auto":
        return _best(partner_tickets)
    if choice is None or choice.kind == "none":
        return None
    if choice.kind == "best":
        return _best(partner_tickets)
    for ticket in partner_tickets:
        if ticket.kind == choice.kind and (
            choice.kind == "pyramid" or (ticket.camel, ticket.value) == (choice.camel, choice.value)
        ):
            return ticket
    return None


def score_leg(seats: Sequence[Seat], ranking: Sequence[str], leg: int, copy_mode: str) -> LegReport:
    """R32 for every seat: own rewards plus the copy, netted, clamped once at 0."""
    rewards = {s.id: own_rewards(s, ranking) for s in seats}
    lines = []
    for s in seats:
        own = sum(t.reward for t in rewards[s.id])
        copy = None
        if s.partner is not None:
            copy = pick_copy(s.copy, copy_mode, rewards[s.partner])
        total = own + (copy.reward if copy is not None else 0)
        lines.append(
            PlayerLeg(
                player=s.id,
                tickets=rewards[s.id],
                own=own,
                partner=s.partner,
                copy=copy,
                tile_income=s.tile_income,
                old=s.money,
                new=max(0, s.money + total),
            )
        )
    return LegReport(leg, tuple(ranking), tuple(lines))


def resolve_pile(
    pile: Sequence[tuple[str, str]], target: str, money: dict[str, int], per_card: bool
) -> tuple[PileCard, ...]:
    """R37/R38: pays one pile in placement order, updating ``money`` in place.

    With ``per_card`` the 0 floor applies after each card (CU-6); otherwise the
    running totals may dip below 0 and the caller clamps once at the end.
    """
    cards = []
    k = 0
    for player, camel in pile:
        correct = camel == target
        if correct:
            k += 1
            delta = finish_pay(k)
        else:
            delta = -1
        old = money[player]
        new = max(0, old + delta) if per_card else old + delta
        money[player] = new
        cards.append(PileCard(player, camel, correct, k if correct else None, delta, new - old))
    return tuple(cards)


def final_scoring(
    money: Mapping[str, int],
    winner_pile: Sequence[tuple[str, str]],
    loser_pile: Sequence[tuple[str, str]],
    winner_camel: str,
    loser_camel: str,
    final_clamp: str,
) -> tuple[tuple[PileCard, ...], tuple[PileCard, ...], dict[str, int]]:
    """Winner pile, then loser pile (R37, R38); returns both card lists and the
    final money per player."""
    per_card = final_clamp == "perCard"
    running = dict(money)
    winner_cards = resolve_pile(winner_pile, winner_camel, running, per_card)
    loser_cards = resolve_pile(loser_pile, loser_camel, running, per_card)
    final = {p: max(0, m) for p, m in running.items()}
    return winner_cards, loser_cards, final


def winners(money: Mapping[str, int]) -> tuple[str, ...]:
    """R39: everyone with the most money; ties share the victory.

    >>> winners({"a": 4, "b": 7, "c": 7})
    ('b', 'c')
    """
    top = max(money.values())
    return tuple(p for p, m in money.items() if m == top)
