"""Pure rule engines: one package per game, the engine contract and the audited random source.

Nothing here does I/O or imports from `service` or `workers`.
"""
