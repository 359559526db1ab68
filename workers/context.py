"""What a job needs, built once per worker process from the environment."""

from __future__ import annotations

from functools import lru_cache

from rq import Queue

from service.config import Config
from service.domain.kept_states import Kept
from service.domain.recent import Recent
from service.storage.configured import open_store
from service.storage.resolve_queue import make_queue, share_queue
from service.storage.store import Store


@lru_cache(maxsize=1)
def config() -> Config:
    return Config()


@lru_cache(maxsize=1)
def store() -> Store:
    made = open_store(config())
    share_queue(made, queue())
    return made


@lru_cache(maxsize=1)
def queue() -> Queue:
    cfg = config()
    return make_queue(cfg.REDIS_URL, cfg.QUEUE)


@lru_cache(maxsize=1)
def kept_states() -> Recent[Kept]:
    """The states this worker committed last, by game (service/domain/kept_states.py): `take`
    one to use it, `put` it back after a written commit."""
    return Recent(config().FORESEE_GAMES)
