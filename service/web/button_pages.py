"""The few plain HTML pages a mail's link opens (an address confirmation, an invitation): a
page that says what its button would do, and the answer to the button's POST. A link scanner
that fetches every link changes nothing; the pages load nothing and run no script."""

from __future__ import annotations

from flask import Response, request

#: what the page and its answer may do: show themselves and post their own form, in no frame
PAGE_HEADERS = {"Content-Security-Policy": "default-src 'none'; form-action 'self'; "
                                           "frame-ancestors 'none'",
                "Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}


def page(title: str, body: str) -> Response:
    """A page titled `title` around `body` (HTML the caller escaped)."""
    text = (f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>Parley: {title}</title></head>\n<body>\n<h1>{title}</h1>\n{body}\n"
            "</body></html>\n")
    return Response(text, mimetype="text/html", headers=PAGE_HEADERS)


def wants_page() -> bool:
    """Whether the POST came from a browser's form (answer a page) rather than a program."""
    return request.accept_mimetypes.best_match(["application/json", "text/html"]) == "text/html"
