"""Why an event is refused: the stable rejection codes, and one rejection.

Pure data, shared by the pydantic contract (:mod:`showdown_messages.rejections`
turns validation errors into :class:`Rejection`) and the core (whose
``InvalidEvent`` carries them).
"""

from __future__ import annotations

from typing import NamedTuple

CODES: dict[str, str] = {
    "malformed_json": "The payload is not a JSON document. Send one JSON object.",
    "not_an_object": "The payload is JSON but not an object. Send one ShowdownEvent object.",
    "missing_field": "A required field is absent. Add it.",
    "duplicate_key": "A key is given twice in one JSON object (a parser would keep the last silently). "
    "Give each field once.",
    "unknown_field": "A field the schema does not define. Remove it or upgrade schema_version.",
    "wrong_type": "A field has the wrong JSON type. Send the type the schema gives.",
    "unsupported_schema_version": "schema_version is not one this worker speaks (1).",
    "unknown_variant": "variant is not a supported game (see VARIANT_SHAPES: holdem, short_deck, omaha, ...).",
    "bad_id": "An id is empty, over 200 characters, or holds a control or format character (U+200B zero width "
    "space, U+202E right-to-left override, U+FEFF, ...) or a line or paragraph separator (U+2028, U+2029).",
    "bad_seat": "A seat number is outside 1-10.",
    "bad_chips": "A chip amount is not a whole number from 0 to 10^15 (an entry's stack and a purchase's chips: "
    "from 1), or the chips put in total more than 2^53 - 1.",
    "bad_timestamp": "occurred_at is not an RFC 3339 date-time text (2026-11-21T12:00:00Z).",
    "bad_card": "A card is not rank 23456789TJQKA (or 10) followed by suit cdhs or a suit symbol.",
    "card_not_in_deck": "A card the variant's deck does not hold (short deck: no 2, 3, 4 or 5).",
    "duplicate_card": "One card appears twice in the event (board, hole cards, folded players' cards).",
    "too_many_cards": "A board or hand holds more cards than any variant allows.",
    "no_players": "The event lists no players.",
    "too_many_players": "The event lists more than 10 players.",
    "duplicate_seat": "Two players sit in the same seat.",
    "duplicate_player": "One player_id sits in two seats.",
    "no_live_player": "Every player folded: somebody must be left to win the pot.",
    "bad_board_size": "The board has the wrong number of cards for this variant's showdown.",
    "bad_hole_cards": "A live player has the wrong number of cards for this variant's showdown.",
    "unequal_hole_cards": "Players of one Omaha hand hold different numbers of cards (all are dealt the same).",
    "bad_boards": "boards is not 2-3 complete boards, each starting with the cards dealt before the all-in, "
    "given instead of board, in a game with a board.",
    "missing_button": "button_seat is required for board and draw games (it decides odd chips).",
    "folded_top_contribution": "The largest contribution belongs only to folded seats; nobody can win it.",
    "partial_stacks": "Starting stacks are given for some seats but not all.",
    "stack_too_small": "A seat put in more chips than its starting stack.",
    "bad_rake": "The rake is larger than the pots it is taken from or than rake_ppm gives; or rake_ppm is not 0-10^6.",
    "unknown_rake_schedule": "rake_schedule names a schedule no worker knows (`showdown rake --list`), or one "
    "that posts no rake for the hand's game, stakes or date: never settled with a guess.",
    "rake_mismatch": "The rake given differs from what the event's rake_schedule takes from these pots (the message "
    "names the schedule, the pot, the expected and the stated amounts): a rake above the schedule is never paid.",
    "bad_bounty": "bounty_cash_ppm is not a whole number from 0 to 1000000.",
    "bad_round": "hand_for_hand_round, or a round_complete's round, is not a whole number from 1 to 2^53 - 1.",
    "bad_number": "An entry or purchase number is not a whole number from 1 to 2^53 - 1.",
    "partial_bounties": "Bounties are given for some seats but not all.",
    "bounty_without_stack": "Bounties are given without starting stacks (eliminations need them).",
    "missing_bounty_cash_ppm": "Bounties are given without bounty_cash_ppm (1000000 knockout, 500000 PKO).",
    "bad_payouts": "A tournament's payouts are not a list of whole amounts from 0 to 10^15, pay nothing, pay a "
    "lower place more than a higher one, or (when registration closes) pay more places than the field has entries.",
    "bad_play": "play names another game than the event's variant, or a list of it (starting_stacks, antes, "
    "blinds_or_straddles) does not give one entry per player.",
    # Raised by the worker playing an event's `play` (showdown_core.betting), naming the action and the seat:
    "betting_mismatch": "The event states contributed, dead_money, folded, a board, a stack or button_seat other "
    "than its play's actions give.",
    "out_of_turn": "An action out of turn, or a street dealt (or a draw made) before the betting before it closed "
    "(TDA 2024 Rule 53).",
    "raise_below_minimum": "A bet or raise below the minimum, not all-in (TDA 2024 Rule 43; fixed limit: the bet).",
    "raise_above_limit": "A raise beyond the pot (pot limit), beyond the bet size or the cap (fixed limit).",
    "betting_not_reopened": "A raise by a player who already acted and faces only a short all-in: it does not "
    "reopen the betting (TDA 2024 Rule 47).",
    "bet_beyond_stack": "A bet or raise of more chips than the seat has behind (table stakes).",
    "acted_after_fold": "An action by a player who folded.",
    "acted_after_all_in": "A betting action by a player who is all-in.",
    "forced_bet_mismatch": "The play's antes, blinds, straddles or bring-in are not the declared ones, or the "
    "stakes its betting structure needs (min_bet; small_bet and big_bet; bring_in) are missing.",
    "bad_board_street": "Board cards of the wrong number for the street (flop 3, turn 1, river 1), or a board in a "
    "game without one.",
    "bad_action": "An action that is not phh-std notation (pN f, pN cc, pN cbr AMOUNT, pN pb, pN sd [CARDS], "
    "pN sm [CARDS], d dh pN CARDS, d db CARDS), or that the game does not have.",
    "incomplete_play": "The play's actions end while a seat is still to act or to draw.",
    # Raised by the worker around the event, not by the model:
    "payload_too_large": "The entry is larger than the configured maximum payload size.",
    "missing_event": "The stream entry has no 'event' field (nor is it a tournament message).",
    "ambiguous_entry": "The stream entry has both an 'event' and a 'tournament' field, or gives one field twice: "
    "one message an entry, each field once.",
    "conflicting_duplicate": "This hand_id was already settled with different content.",
    "poison": "Settling this entry failed unexpectedly on every delivery; see the worker logs.",
    "invariant_violation": "Settlement did not pay out exactly the chips put in (a bug: see logs).",
    # Raised by the tournament ledger (a hand or message of an opened tournament):
    "tournament_not_open": "A tournament message for a tournament with no `open` message on this shard before it.",
    "tournament_exists": "An `open` message for a tournament opened already with other settings.",
    "wrong_shard": "A hand or tournament message naming a tournament another shard holds (its message names the "
    "shard): route by tournament_id, shard_for(tournament_id, shards). Or a hand whose hand_id another shard took "
    "first: a hand settles on one shard only, whatever the route.",
    "ledger_lost": "A hand or tournament message of a tournament the archive knows whose ledger Redis lost (it "
    "came back without its data): refused until `showdown tournament restore ID` rebuilds the ledger from the "
    "archive; then requeue these letters in order (`showdown dead-letters --code ledger_lost --requeue`).",
    "registration_closed": "An `entry` after registration closed (or a second close with other payouts).",
    "entry_conflict": "An `entry` that repeats one with other figures, skips an entry number, or whose player still "
    "has an entry in play.",
    "purchase_conflict": "A `chips` message that repeats a purchase with other figures or skips a purchase number.",
    "chips_limit": "An `entry` or `chips` purchase that would take the chips registered in its tournament (or its "
    "bounties) past 10^15: one stack (or head) may end up holding them all, and no hand can give more.",
    "bounty_required": "An `entry` of a knockout tournament without its bounty.",
    "bounty_not_expected": "A bounty in a tournament opened without bounties.",
    "tournament_over": "A hand of a tournament that has finished.",
    "tournament_stacks_missing": "A hand of an opened tournament without starting stacks.",
    "tournament_rake": "A hand of an opened tournament with rake: a tournament's chips stay in play (the house takes "
    "its fee with the buy-in).",
    "round_open": "A hand without hand_for_hand_round while a hand-for-hand round is not complete (a hand of it has "
    "come, its round_complete not yet): send it with its round (or round_complete first).",
    "not_entered": "A seat (or a `chips` message) whose player has no entry in play in the tournament.",
    "stack_mismatch": "A seat's starting stack differs from its entry's chips after its previous hand.",
    "bounty_mismatch": "A seat's bounty, or the hand's bounty_cash_ppm (given, with seat bounties or without), "
    "differs from the tournament ledger's.",
    "round_already_complete": "A hand of a hand-for-hand round that was completed before it.",
    # Final-table deals and mystery bounties (issue 29):
    "deal_not_allowed": "A `deal` while registration is open, during a hand-for-hand round, with an entry not in "
    "the money, after the tournament finished, or after another deal.",
    "deal_entries": "A `deal` that leaves out an entry in play, names one busted, never registered or twice.",
    "deal_amounts": "A `deal` whose amounts do not add up to the unpaid prizes less left_to_play_for, gives amounts "
    "without method custom (or none with it), or keeps back more than first prize minus second.",
    "deal_too_large": "An `icm` deal between more than 20 entries (MAX_ICM_DEAL_ENTRIES: its Monte Carlo's work "
    "grows with the field): agree it as chip_chop, equal or custom.",
    "mystery_bounty_seat": "A hand's mystery_bounties miss an eliminated seat, name a seat not eliminated (or not "
    "in the hand), or one twice; or are given without starting stacks.",
    "mystery_bounty_envelope": "A mystery bounty of an amount not in the tournament's pool, or whose envelopes are "
    "all drawn.",
    "mystery_bounty_not_expected": "mystery_bounties on a hand outside the tournament's mystery-bounty stage (or of "
    "a tournament without one, or of no tournament at all: a hand with no tournament_id).",
    "bad_stacks": "A stack given to ICM is not a positive whole number of chips.",
    # All-in cash-outs (issue 39, docs/cashout.md):
    "bad_cashout": "A cash-out in a game without a board, on a hand run more than once, of a tournament, at an "
    "uncontested showdown, or by a seat not in the hand or folded; one naming no point (neither street nor action), "
    "or an action without the event's play.",
    "cashout_not_all_in": "A cash-out by a seat that was not all-in (nor covering the all-ins, every other live "
    "seat all-in), or on a hand without starting stacks (which show who was all-in).",
    "cashout_repeated": "Two cash-outs of one seat.",
    "cashout_action_out_of_range": "A cash-out whose action is no index of play.actions (0 to their count - 1), "
    "or comes after the river is dealt (the board complete: nothing left to cash out).",
    "cashout_before_all_in": "A cash-out at an action before its seat was all-in and called: the seat still had "
    "chips behind (and did not cover every other live seat, all-in), or chips still went into the pots it "
    "contests after that action.",
    "cashout_street_mismatch": "A cash-out stating a street other than the one its action was played on (the "
    "board then dealt: none, the flop or the turn).",
    "cashout_above_pot": "A cash-out offer above the pots the seat contests, less their rake.",
    "cashout_mismatch": "A cash-out offer other than (pot - rake) x the seat's exact equity at its point, less "
    "fee_ppm of it, rounded half to even to the minor unit.",
    # Jackpots (issue 39, docs/jackpot.md):
    "bad_jackpot": "A jackpot drop on a tournament hand, without stakes, or above the rake (which counts it).",
    "unknown_jackpot_program": "jackpot.program names a program no worker knows (data/jackpot/), or one that does "
    "not run in the hand's game.",
    "jackpot_drop_mismatch": "The jackpot drop differs from what its program takes from this pot (its big blinds, "
    "from pots of its minimum or more, after the rake).",
    "bad_jackpot_program": "A jackpot program that cannot be: shares that could pay more than the fund, a "
    "qualifier spelled as no hand (five ranks, 2222, AKQJ9s), a negative drop, a game no worker settles or one "
    "without a board, or games that value hands differently in one program.",
    "jackpot_qualifier_impossible": "A jackpot program whose qualifier names a hand one of its games cannot make: "
    "five of a kind, a suited pair, a rank the deck lacks (short deck: 2222), any high hand in a low-only game "
    "(razz, deuce_to_seven, badugi).",
    "jackpot_pot_under_minimum": "A jackpot drop from a pot under its program's minimum (in big blinds): the "
    "program drops nothing there.",
    "jackpot_program_changed": "A hand naming a jackpot declared (by its first hand) with another program, or "
    "stating another seed: a jackpot id keeps its rules.",
    # The table's currency (issue 36):
    "bad_currency": "currency is not an ISO 4217 code with a minor unit (three upper-case letters the standard "
    "lists: USD, EUR, GBP, JPY, ...; showdown_rules.currencies).",
    "tournament_currency": "A tournament hand with a currency: a tournament's chips are no currency (send the hand "
    "without one).",
}
"""Every rejection code with what it means and how to fix the event."""


class Rejection(NamedTuple):
    """One reason an event was refused."""

    code: str
    """Stable machine-readable reason, a key of :data:`CODES`."""
    field: str
    """Path of the offending field, e.g. ``players[2].hole_cards[1]``; ``""`` for the whole event."""
    message: str
    """Human-readable: the field, the offending value and what is wrong with it."""
