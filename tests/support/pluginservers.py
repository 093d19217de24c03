"""Stand-ins for the services other Scrapy plugins send requests to, on 127.0.0.1, for
``tests/test_plugins_*.py`` (docs/plugins.md): a fake Zyte API and a fake Splash. Each
records every URL it was asked to fetch, so a test can say which route each request took.

A plugin that is not installed is a skip that says so, unless ``REP_REQUIRE_PLUGINS=1``
(CI sets it once it has installed the ``plugins`` extra) makes it a failure.
"""

from __future__ import annotations

import base64
import importlib.util
import json
import os
from collections.abc import Callable
from typing import Any

import pytest
from twisted.internet import reactor
from twisted.web.resource import Resource
from twisted.web.server import Request as WebRequest
from twisted.web.server import Site

#: Every page of a fake site: path -> (status, content type, body).
Pages = dict[str, tuple[int, str, bytes]]


def require_plugin(module: str, extra: str) -> None:
    """Skip (or fail under ``REP_REQUIRE_PLUGINS=1``) when ``module`` is not installed."""
    if importlib.util.find_spec(module) is not None:
        return
    message = f"{module} is not installed (pip install -e '.[{extra}]')"
    if os.environ.get("REP_REQUIRE_PLUGINS") == "1":
        pytest.fail(message)
    pytest.skip(message)


def page(pages: Pages, url: str) -> tuple[int, str, bytes]:
    """What a fake site answers for ``url`` (by its path: the query is ignored); 404 if
    it has no such page."""
    path = "/" + url.split("://", 1)[-1].partition("/")[2].partition("?")[0]
    return pages.get(path, (404, "text/html", b"<html><body>not found</body></html>"))


class FakeZyteApi(Resource):
    """``POST /v1/extract`` as Zyte API answers an HTTP request (``httpResponseBody``,
    ``httpResponseHeaders``) or a browser request (``browserHtml``): the page of ``pages``
    its URL names, with its status."""

    isLeaf = True

    def __init__(self, pages: Pages) -> None:
        super().__init__()
        self.pages = pages
        #: The URLs asked for, in order.
        self.asked: list[str] = []
        #: The parameters of each request, by URL (the last one).
        self.queries: dict[str, dict[str, Any]] = {}

    def render_POST(self, request: WebRequest) -> bytes:
        query: dict[str, Any] = json.loads(request.content.read())  # type: ignore[union-attr]
        url = str(query["url"])
        self.asked.append(url)
        self.queries[url] = query
        status, content_type, body = page(self.pages, url)
        answer: dict[str, Any] = {"url": url, "statusCode": status}
        if query.get("httpResponseBody"):
            answer["httpResponseBody"] = base64.b64encode(body).decode()
        if query.get("browserHtml"):
            answer["browserHtml"] = body.decode()
        if query.get("httpResponseHeaders"):
            answer["httpResponseHeaders"] = [{"name": "Content-Type", "value": content_type}]
        request.setHeader("Content-Type", "application/json")
        return json.dumps(answer).encode()


class FakeSplash(Resource):
    """``POST /render.html`` as Splash answers it: the page of ``pages`` its ``url``
    argument names, as if rendered (Splash answers 200 with the page's HTML)."""

    isLeaf = True

    def __init__(self, pages: Pages) -> None:
        super().__init__()
        self.pages = pages
        #: The URLs asked for (the ``url`` argument), in order.
        self.asked: list[str] = []
        #: The paths of this server that were requested (``/robots.txt`` would be one).
        self.paths: list[str] = []

    def render_POST(self, request: WebRequest) -> bytes:
        self.paths.append(request.uri.decode())
        args: dict[str, Any] = json.loads(request.content.read())  # type: ignore[union-attr]
        url = str(args["url"])
        self.asked.append(url)
        _, content_type, body = page(self.pages, url)
        request.setHeader("Content-Type", content_type)
        return body

    def render_GET(self, request: WebRequest) -> bytes:
        self.paths.append(request.uri.decode())
        request.setResponseCode(404)
        return b""


async def serving_resource(resource: Resource) -> tuple[str, Callable[[], Any]]:
    """Serve ``resource`` on a free 127.0.0.1 port: its base URL and a stop function."""
    port = reactor.listenTCP(0, Site(resource), interface="127.0.0.1")  # type: ignore[attr-defined]
    return f"http://127.0.0.1:{port.getHost().port}", port.stopListening
