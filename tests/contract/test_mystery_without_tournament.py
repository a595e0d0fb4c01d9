"""Issue 34 item 9: ``mystery_bounties`` on a hand with no tournament (10^15 envelopes naming the winner) was
settled without a word; it is refused ``mystery_bounty_not_expected``, by the contract and so by the worker."""

from __future__ import annotations

import json
from typing import Any

import fakeredis
import pytest
from pydantic import ValidationError

from showdown_messages import ShowdownEvent, rejections
from showdown_service.infra.streams import read_range
from showdown_service.worker.loop import Worker
from tests.tournament_builders import all_in

HAND = json.loads(all_in("H1", [(1, "a", 1000, 1000), (2, "b", 1000, 1000)], tid=None))["event"]


@pytest.mark.parametrize("envelopes", [[{"seat": 2, "amount": 10**15}], []])
def test_mystery_bounties_on_a_hand_with_no_tournament_are_refused(envelopes: list[dict[str, int]]) -> None:
    assert HAND["tournament_id"] is None
    ShowdownEvent.model_validate_json(json.dumps(HAND))  # the hand alone is fine
    payload = json.dumps({**HAND, "mystery_bounties": envelopes})
    with pytest.raises(ValidationError) as caught:
        ShowdownEvent.model_validate_json(payload)
    (first, *_) = rejections(caught.value, payload)
    assert (first.code, first.field) == ("mystery_bounty_not_expected", "mystery_bounties")
    assert "a hand with no tournament_id" in first.message


def test_the_worker_dead_letters_it_and_settles_nothing(fake: fakeredis.FakeRedis, make_settings: Any) -> None:
    settings = make_settings()
    keys = settings.keys("default")
    fake.xadd(keys.events, {"event": json.dumps({**HAND, "mystery_bounties": [{"seat": 2, "amount": 10**15}]})})
    worker = Worker(settings, fake)
    worker.run(until_idle=True)
    ((_, letter),) = read_range(fake, keys.dead)
    assert letter[b"code"] == b"mystery_bounty_not_expected"
    assert fake.xlen(keys.results) == 0
