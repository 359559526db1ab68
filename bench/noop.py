"""The no-op RQ job of the end-to-end benchmark (RQ's own loop, nothing of Parley's)."""


def noop() -> None:
    return None
