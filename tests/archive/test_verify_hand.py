"""``showdown audit verify`` names a forged result's hand as every reader does (issue 35 item 3, one "which hand
does this entry name"): the ``hand_id`` field the commit writes beside the result, else (an entry an older worker
wrote) the result's own ``hand_id``."""

from __future__ import annotations

import json
from typing import Any

import fakeredis

from showdown_messages.protocol import HAND_ID_FIELD, RESULT_FIELD
from showdown_service.archive.verify import verify_texts
from showdown_service.worker.loop import Worker
from tests.archive.test_archive import hands, publish


def test_a_forged_result_is_named_by_the_hand_id_beside_it_else_by_its_own(
    fake: fakeredis.FakeRedis, make_settings: Any
) -> None:
    settings = make_settings()
    keys = settings.keys("default")
    publish(fake, keys, [("event", json.dumps(doc)) for doc in hands(3)])
    Worker(settings, fake).run(until_idle=True)
    assert verify_texts(fake, keys) == (3, [])
    fake.xadd(keys.results, {RESULT_FIELD: b"{truncated", HAND_ID_FIELD: b"h-1"})  # unreadable: the field names it
    fake.xadd(keys.results, {RESULT_FIELD: json.dumps({"hand_id": "h-2"})})  # an older worker's: no field
    fake.xadd(keys.results, {RESULT_FIELD: b"[]"})  # names no hand at all
    checked, forged = verify_texts(fake, keys)
    assert checked == 6
    assert [f.detail for f in forged] == [
        "result of hand h-1: no audit record has its digest",
        "result of hand h-2: no audit record has its digest",
        "result of hand ?: no audit record has its digest",
    ]
