"""The bytes of images, audio and files in eval cases, known by their content hash (docs/media.md).

Knows nothing of eval sets, agents or criteria: `loading/media_parts.py` applies it to a
case's parts, cassettes and the run's media folder keep blobs with it. The whole interface:

- `sniff.media_type_problem(declared, head)`: None when the first bytes of a file are of the
  declared MIME type, else what is wrong (a different type, or one evalkit cannot recognise).
- `sniff.usual_type(mime_type)`: the usual name of a declared type (`audio/x-wav` → `audio/wav`),
  from the one alias table (`sniff.ALIASES`) that checks, pages and judges all read.
- `locations.local_path(file_uri, folder)`: where a `file_uri` is on this machine (a relative
  path is taken from `folder`), or `Unreadable` saying why evalkit cannot read it (`gs://`, `https://`).
- `reading.media_files()`: the process's `MediaFiles`; `.read(path)` reads a file once and
  hashes it once (`MediaFile`: data, sha256), kept while the files read fit a memory budget;
  `.reads` and `.hashes` count the work done.
- `encoding.decode_base64(text)`: base64 in either alphabet, padded or not (None: not base64).
- `digest.content_hash(data)`: the sha256 (hex) media is known by everywhere.
- `blob_store.keep_blob(folder, data)`: writes `folder/SHA256` once (never rewritten), returns
  the hash; `blob_store.read_blob(folder, sha256)` reads it back, checked against its name.
"""
