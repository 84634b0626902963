"""`evalkit view`: a local web viewer of result files (docs/viewer.md).

`index.py` finds and reads the result files (lazily: a file is scanned once, its cases
kept as small rows, a case read back from disk when opened); `query.py` filters, sorts
and pages the rows; `trends.py` and `live.py` build the runs page's trend plot and the
runs in progress; `server.py` serves the pages and the JSON API; `export.py` writes a
static copy. Starlette and uvicorn are imported only here (the `view` extra).
"""
