"""`evalkit view`: a local web viewer of result files (docs/viewer.md).

`index.py` finds and reads the result files (lazily: a file is scanned once, its cases
kept as small rows, a case read back from disk when opened); `query.py` filters, sorts
and pages the rows; `live.py` reads the runs in progress; `data.py` answers the JSON
API from both; `server.py` serves the pages and that API; `export.py` writes a static
copy. Starlette and uvicorn (the `view` extra) are imported only when the server starts.
"""
