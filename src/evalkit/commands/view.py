"""`evalkit view [PATH...]`: serve the local viewer of result files until interrupted (docs/viewer.md)."""

from __future__ import annotations

import socket
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from evalkit.defaults import DEFAULT_VIEW_PORT, VIEW_POLL_S
from evalkit.errors import ExitCode, Problem, UsageError

if TYPE_CHECKING:
    from evalkit.view.data import ViewData

_SWITCH_INTERVAL_S = 0.0005  # Python's default is 0.005
INSTALL_HINT = 'python -m pip install "evalkit-agents[view]"'


@dataclass
class ViewRequest:
    paths: list[Path] = field(default_factory=list)
    host: str = "127.0.0.1"
    port: int | None = None  # None: the default port, or a free one when it is taken
    open_browser: bool = True
    labels: Path | None = None
    export: Path | None = None


def view_command(request: ViewRequest) -> int:
    from evalkit.settings import Environment
    from evalkit.view.data import ViewData

    for path in request.paths:
        if not path.exists():
            raise UsageError(Problem(str(path), "", "no such file or folder; name result files or folders holding them"))
    if request.labels is not None and request.labels.is_dir():
        raise UsageError(Problem(str(request.labels), "", "is a folder; --labels takes a file (JSON or YAML)"))
    environment = Environment.read()
    data = ViewData(request.paths or [environment.runs_dir], labels=request.labels, poll_s=VIEW_POLL_S,
                    media_dir=environment.media_dir)
    if request.export is not None:
        from evalkit.view.export import export_site

        exported = export_site(data, request.export)
        print(f"evalkit view: wrote {exported.runs} runs to {request.export}; serve the folder over HTTP to browse it, "
              f"e.g. python -m http.server -d {request.export}")
        if exported.missing_media:
            looked = ", ".join(str(folder) for folder in data.media_dirs)
            print(f"evalkit view: warning: {len(exported.missing_media)} media the runs show are in no media folder "
                  f"(looked in {looked}); the copy cannot show them. Copy the runs' .evalkit/media folder "
                  "beside their history (.evalkit/runs), then export again", file=sys.stderr)
        return ExitCode.OK
    _check_server_libraries()
    if not data.index.files() and not data.live.runs():  # files are read after the address is printed
        looked = ", ".join(str(source) for source in data.sources)
        print(f"evalkit view: no result files in {looked}; make a run first (evalkit run evalsets/ --agent SPEC "
              "keeps it in .evalkit/runs/), or name result files: evalkit view result.json", file=sys.stderr)
    from evalkit.view.guard import LOOPBACK_NAMES

    if request.host not in LOOPBACK_NAMES:
        print(f"evalkit: warning: serving on {request.host}: anyone who reaches this address can read these "
              "results, which may hold sensitive text (prompts, responses, tool arguments)", file=sys.stderr)
    serve(data, request)
    return ExitCode.OK


def _check_server_libraries() -> None:
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as error:
        raise UsageError(f"evalkit view needs {error.name}, which is not installed: {INSTALL_HINT}") from None


def serve(data: ViewData, request: ViewRequest) -> None:
    """Bind, print the address (the first line on stdout), and serve until interrupted."""
    # Files are read in the background while the server starts and serves; a short switch
    # interval keeps the server answering while a large file is being read.
    sys.setswitchinterval(_SWITCH_INTERVAL_S)
    threading.Thread(target=data.runs, daemon=True).start()
    import uvicorn

    from evalkit.view.page import render_page
    from evalkit.view.server import create_app

    from evalkit.view.guard import Addresses

    addresses = Addresses(request.host)  # its port, once bound
    config = uvicorn.Config(create_app(data, addresses), log_level="warning", access_log=False, lifespan="off")
    config.load()  # before the address is printed: the first page is answered at once
    render_page(static=False)
    sock = _bind(request.host, request.port)
    host, port = sock.getsockname()[:2]
    addresses.port = port
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/"
    print(f"evalkit view: {url}", flush=True)
    if request.open_browser:
        import webbrowser

        threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
    uvicorn.Server(config).run(sockets=[sock])


def _bind(host: str, port: int | None) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    for candidate in ([DEFAULT_VIEW_PORT, 0] if port is None else [port]):
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, candidate))
        except OSError as error:
            sock.close()
            if port is None and candidate != 0:
                continue
            raise UsageError(f"--port {candidate} on {host}: {error.strerror or error}; "
                             "pass another port, or --port 0 for any free one") from None
        sock.listen(128)
        sock.set_inheritable(True)
        return sock
    raise UsageError(f"no free port on {host}")
