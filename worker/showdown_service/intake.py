"""The boundary: wire payloads in, typed core values out.

Card text is parsed exactly once, here (the message model has already
canonicalised it, so each card is one dict lookup).
"""

from __future__ import annotations

from pydantic import ValidationError

from showdown_core import BY_TEXT, VARIANTS, InvalidEvent, SeatHand, Showdown
from showdown_messages import ShowdownEvent, rejections


def parse_event(payload: bytes | str) -> ShowdownEvent:
    """Validate one ShowdownEvent JSON document.

    Raises :class:`~showdown_core.InvalidEvent` carrying every rejection
    (code, field, message), the first being the most important.
    """
    try:
        return ShowdownEvent.model_validate_json(payload)
    except ValidationError as exc:
        raise InvalidEvent(rejections(exc)) from None


def to_showdown(event: ShowdownEvent) -> Showdown:
    """The core's view of a validated event."""
    cards = BY_TEXT
    return Showdown(
        hand_id=event.hand_id,
        table_id=event.table_id,
        variant=VARIANTS[event.variant],
        board=tuple(cards[c] for c in event.board),
        button_seat=event.button_seat,
        seats=tuple(
            SeatHand(
                p.seat,
                p.player_id,
                tuple(cards[c] for c in p.hole_cards) if p.hole_cards else (),
                p.contributed,
                p.dead_money,
                p.folded,
                p.stack,
            )
            for p in event.players
        ),
        tournament_id=event.tournament_id,
    )
