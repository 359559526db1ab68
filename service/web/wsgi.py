"""The WSGI entry point the web server loads in each of its worker processes (`parley web`,
service/web/serve.py)."""

from service.config import Config
from service.ops.redis_check import ensure_safe
from service.web.app import create_app

_config = Config()
ensure_safe(_config.STORE_URL, "game store")
app = create_app(_config)
