"""Who may read metrics: the scraper alone, in the web and the stream process alike.

With PARLEY_METRICS_TOKEN set a scrape needs that bearer token; without it, a client on this
host (what is served tells how busy the server is and what players do: nothing for the world).
"""

from __future__ import annotations

import hmac
import ipaddress

from service.domain.problems import Forbidden, Unauthorized


def admit_scraper(token: str, authorization: str, address: str) -> None:
    """Let a metrics scrape through: it holds the token, or (no token set) it comes from this
    host; Unauthorized or Forbidden otherwise."""
    if token:
        scheme, _, sent = authorization.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(sent.strip().encode(),
                                                                 token.encode()):
            raise Unauthorized("GET /metrics needs the bearer token PARLEY_METRICS_TOKEN.")
        return
    try:
        local = ipaddress.ip_address(address).is_loopback
    except ValueError:
        local = False
    if not local:
        raise Forbidden("Metrics are served to loopback clients only; set "
                        "PARLEY_METRICS_TOKEN to scrape from elsewhere.")
