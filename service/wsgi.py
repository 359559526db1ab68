"""The WSGI entry point for gunicorn: `gunicorn service.wsgi:app`."""

from service.app import create_app
from service.config import Config
from service.redis_check import ensure_safe

_config = Config()
ensure_safe(_config.STORE_URL, "game store")
app = create_app(_config)
