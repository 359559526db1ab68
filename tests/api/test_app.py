"""The app's own assumptions about Flask."""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import Any


def _functions(app: Any) -> Iterator[Any]:
    """Every function Flask calls through `ensure_sync`: views (and MethodView methods),
    request hooks and error handlers, each with every layer its decorators wrapped."""
    found: list[Any] = list(app.view_functions.values())
    for view in app.view_functions.values():
        cls = getattr(view, "view_class", None)
        if cls is not None:
            found += [getattr(cls, m.lower()) for m in cls.methods or ()]
    for hooks in (app.before_request_funcs, app.after_request_funcs,
                  app.teardown_request_funcs):
        for funcs in hooks.values():
            found += funcs
    for by_code in app.error_handler_spec.values():
        for handlers in by_code.values():
            found += handlers.values()
    for func in found:
        while func is not None:
            yield func
            func = getattr(func, "__wrapped__", None)


def test_no_async_function_is_registered(app) -> None:
    """`ParleyFlask.ensure_sync` returns functions as they are: none may be a coroutine."""
    functions = list(_functions(app))
    assert len(functions) > 50  # the views and their decorator layers were found
    assert [f for f in functions if inspect.iscoroutinefunction(f)] == []
