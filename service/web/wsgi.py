"""The WSGI entry point for gunicorn: `gunicorn service.web.wsgi:app`."""

from service.config import Config
from service.ops.redis_check import ensure_safe
from service.web.app import create_app

_config = Config()
ensure_safe(_config.STORE_URL, "game store")
app = create_app(_config)
