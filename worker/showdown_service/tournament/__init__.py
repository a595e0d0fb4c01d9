"""Tournaments: the ledger of places, prizes and bounties (:mod:`.book`), kept in Redis beside the commit
(:mod:`.store`), replayed in process (:mod:`.replay`), and the ``showdown tournament`` commands (:mod:`.cli`)."""
