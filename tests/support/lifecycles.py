"""The document lifecycle as its adapter drives it, for tests of the pure machine."""

from __future__ import annotations

from typing import Any, TypeVar

from scrapy_rep.fetch.lifecycle import Lifecycle
from scrapy_rep.fetch.lifecycle.events import Action, Announce, Announced

D = TypeVar("D")


class Announcing(Lifecycle[D]):
    """A lifecycle whose known documents' ``Announce`` is answered at once with
    ``Announced``, as the adapter does when no signal handler is async: the actions that
    follow (the ``Release``) come in the same list. The step ``ANNOUNCING`` itself is
    driven in tests/fetch/lifecycle/test_machine.py."""

    def handle(self, event: Any, now: float) -> list[Action]:
        actions = super().handle(event, now)
        for action in list(actions):
            if isinstance(action, Announce) and action.known:
                actions += super().handle(Announced(action.key), now)
        return actions
