"""What a data file's bytes say before it is parsed: whether it is text at all, and the
dialect of the semicolon-separated CSV that spreadsheets write in comma-decimal locales.

- **Not text.** Delimited text never holds a NUL byte; UTF-16 (Excel's "Unicode Text")
  holds one in every other byte. Either is said as what it is (binary data, UTF-16
  text, an old ``.xls`` workbook), never as a parse error or an empty file.
- **Not in its encoding.** Text is read as UTF-8 (a byte-order mark allowed) unless
  ``--encoding`` names another encoding that keeps ASCII as it is (latin-1, cp1252, ...).
  A byte that is not text in it is reported with its offset and line, and what to do.
- **Semicolons.** A ``.csv`` file (or standard input) whose header has no comma but
  splits on ``;`` into columns, and whose first lines split into as many, is
  semicolon-separated; its decimal mark is the comma when its numbers are written so
  (``3,5``) and none with a point. Only without ``--sep``; ``--decimal ,`` is respected.
"""

from __future__ import annotations

import codecs
import csv
import io
import re

__all__ = [
    "SEMICOLON_HINT",
    "TEXT_FORMATS",
    "check_encoding",
    "first_undecodable",
    "not_text",
    "semicolon_dialect",
    "semicolon_header",
    "undecodable_message",
]

#: What to try when a file's header is separated by semicolons but its rows are not.
SEMICOLON_HINT = "try --sep ';' --decimal ','"
#: What qwkit reads, as messages say it.
TEXT_FORMATS = "CSV, TSV, Parquet or .xlsx"
_OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # .xls (and other old Office files)
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
#: Lines read to decide the dialect.
_SNIFF_LINES = 50
_COMMA_NUMBER = re.compile(r"^\s*[+-]?(\d+,\d*|,\d+)([eE][+-]?\d+)?\s*$")
_POINT_NUMBER = re.compile(r"^\s*[+-]?(\d+\.\d*|\.\d+)([eE][+-]?\d+)?\s*$")
#: Characters that every encoding qwkit reads must write as ASCII does.
_ASCII_SAMPLE = "\t\n\r \"#',-.0123456789;AEZaez|"


def check_encoding(name: str) -> str:
    """The codec's own name for ``--encoding`` (``utf-8``, ``iso8859-1``, ``cp1252``);
    ValueError (a usage error) for an unknown one or one that does not keep ASCII."""
    try:
        codec = codecs.lookup(name)
    except LookupError:
        raise ValueError(
            f"unknown encoding {name!r}; e.g. utf-8 (the default), cp1252 or latin-1."
        ) from None
    if codec.name == "utf-8-sig":
        return "utf-8"  # a byte-order mark is allowed anyway
    try:
        keeps_ascii = _ASCII_SAMPLE.encode(codec.name) == _ASCII_SAMPLE.encode("ascii")
    except (UnicodeError, LookupError, TypeError):
        keeps_ascii = False
    if not keeps_ascii:
        raise ValueError(
            f"{name!r} does not write ASCII characters as ASCII does (e.g. UTF-16); "
            "convert the file to UTF-8 (e.g. iconv -f UTF-16 -t UTF-8 in.csv > out.csv)."
        )
    return codec.name


def not_text(head: bytes, name: str, size: int | None) -> str | None:
    """Why a file whose first bytes are ``head`` is not delimited text (``name``: how
    messages name it; ``size``: its size, when known), or None."""
    evens, odds = head[:64:2], head[1:64:2]
    utf16 = head.startswith(_UTF16_BOMS) or any(  # ASCII in UTF-16: every other byte 0
        len(zeros) >= 2 and zeros.count(0) == len(zeros) and not other.count(0)
        for zeros, other in ((evens, odds), (odds, evens))
    )
    if head.startswith(_OLE2):
        return (
            f"{name} is an old Excel workbook (.xls), which qwkit does not read; save it as "
            ".xlsx or as CSV (UTF-8) and pass that file."
        )
    if b"\x00" not in head and not head.startswith(_UTF16_BOMS):
        return None
    if utf16:
        return (
            f"{name} is UTF-16 text (Excel's 'Unicode Text'), which qwkit does not read; "
            "save it as CSV (UTF-8), or convert it (e.g. iconv -f UTF-16 -t UTF-8 in.txt > "
            "out.csv)."
        )
    if not head.strip(b"\x00") and size is not None and size == len(head):
        return f"{name} holds {size:,} bytes, all NUL: binary data, not {TEXT_FORMATS}."
    first = head.index(b"\x00")
    return f"{name} holds binary data (a NUL byte at offset {first:,}), not {TEXT_FORMATS}."


def first_undecodable(stream, encoding: str) -> tuple[int, int, bytes] | None:
    """``(offset, line, bytes)`` of the first bytes of ``stream`` that are not text in
    ``encoding`` (offset from 0, line from 1), or None if it all decodes."""
    decoder = codecs.getincrementaldecoder(encoding)()
    offset = 0  # of the chunk
    lines = 0  # newlines before the chunk
    while True:
        chunk = bytes(stream.read(1 << 20))
        final = not chunk
        try:
            decoder.decode(chunk, final=final)
        except UnicodeDecodeError as exc:
            pending = len(exc.object) - len(chunk)  # bytes held back from earlier chunks
            at = offset - pending + exc.start
            before = exc.object[: exc.start].count(b"\n")
            return at, lines + before + 1, bytes(exc.object[exc.start : exc.end])
        if final:
            return None
        offset += len(chunk)
        lines += chunk.count(b"\n")


def undecodable_message(
    name: str, encoding: str, found: tuple[int, int, bytes], *, compressed: bool
) -> str:
    """The one line that says where a file stops being text in its encoding."""
    at, line, bad = found
    several = len(bad) > 1
    shown = ("bytes " if several else "byte ") + " ".join(f"0x{b:02X}" for b in bad[:4])
    where = f"offset {at:,}" + (" of its decompressed text" if compressed else "")
    verb = ("are", "have") if several else ("is", "has")
    if encoding == "utf-8":
        return (
            f"{name} is not UTF-8 text: {shown} at {where} (line {line:,}) {verb[0]} not "
            "valid UTF-8; pass its encoding (e.g. --encoding cp1252 for a Windows export, "
            "or --encoding latin-1), or save it as UTF-8."
        )
    return (
        f"{name} is not {encoding} text: {shown} at {where} (line {line:,}) {verb[1]} no "
        f"character in {encoding}; pass its encoding with --encoding, or save it as UTF-8."
    )


def _lines(head: bytes, skip: int, encoding: str) -> list[str]:
    """The non-blank lines below the comment lines, as text (a line cut by the end of
    ``head`` left out)."""
    text = head.decode(encoding, errors="replace").removeprefix("\ufeff")
    lines = text.split("\n")[skip:]
    if len(lines) > 1 and not head.endswith(b"\n"):
        lines = lines[:-1]
    return [line.rstrip("\r") for line in lines if line.strip()][: _SNIFF_LINES + 1]


def _fields(line: str, sep: str) -> list[str]:
    return next(csv.reader(io.StringIO(line), delimiter=sep), [])


def semicolon_header(head: bytes, skip: int, encoding: str) -> bool:
    """Whether the header has no comma but splits on ``;`` into columns."""
    lines = _lines(head, skip, encoding)
    try:
        return bool(lines) and len(_fields(lines[0], ",")) == 1 and len(_fields(lines[0], ";")) > 1
    except csv.Error:
        return False


def semicolon_dialect(head: bytes, skip: int, encoding: str) -> tuple[bool, bool]:
    """``(semicolon-separated, decimal comma)`` of the text whose first bytes are
    ``head``, ``skip`` comment lines above its header (see the module's docstring)."""
    lines = _lines(head, skip, encoding)
    if len(lines) < 2 or not semicolon_header(head, skip, encoding):
        return False, False
    try:
        rows = list(csv.reader(io.StringIO("\n".join(lines)), delimiter=";"))
    except csv.Error:
        return False, False
    if any(len(row) != len(rows[0]) for row in rows[1:]):
        return False, False
    cells = [cell for row in rows[1:] for cell in row]
    comma = any(_COMMA_NUMBER.match(c) for c in cells)
    point = any(_POINT_NUMBER.match(c) for c in cells)
    return True, comma and not point
