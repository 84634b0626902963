"""The viewer's one HTML page (a Jinja2 template); its script draws every view from the JSON API."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

from evalkit.defaults import VIEW_PAGE_SIZE

# No network but the viewer itself. In the page's <meta> (an export has no server to send headers);
# the server sends it as a header too, with `frame-ancestors`, which only a header can set.
PAGE_POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; media-src 'self'; "
               "connect-src 'self'; "
               "base-uri 'none'; form-action 'none'")
HEADER_POLICY = f"{PAGE_POLICY}; frame-ancestors 'none'"


@lru_cache(maxsize=2)
def render_page(static: bool) -> str:
    """The page; `static` for an export, whose script reads JSON files instead of asking a server."""
    import jinja2

    template_text = (resources.files("evalkit.view") / "templates" / "index.html").read_text(encoding="utf-8")
    environment = jinja2.Environment(autoescape=True)
    return environment.from_string(template_text).render(mode="static" if static else "server",
                                                         page_size=VIEW_PAGE_SIZE, policy=PAGE_POLICY)
