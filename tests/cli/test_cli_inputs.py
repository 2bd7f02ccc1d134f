"""What the command line reads besides plain UTF-8 CSV: other encodings (and bytes that
are not text in theirs), binary data, Excel workbooks, and the semicolon-separated CSV of
spreadsheets in comma-decimal locales."""

from __future__ import annotations

import gzip
import json

import numpy as np
import openpyxl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import qwkit
from cli_helpers import RATER1, RATER2, SPEC_1_2_3, as_json, fails, ok, spec_file, write_file


def _ratings_text(sep: str = ",") -> str:
    return f"a{sep}b\n" + "".join(f"{x}{sep}{y}\n" for x, y in zip(RATER1, RATER2, strict=True))


# R irr 0.84.1 kappa2(anxiety[, 1:2], "squared"): 0.297 (cli_helpers); the exact value:
KAPPA = qwkit.kappa_score(RATER1, RATER2)


class TestEncodings:
    def test_byte_that_is_not_utf8_is_located(self, tmp_path):
        text = _ratings_text().replace("3,6\n", "3,6\xe9\n", 1)
        path = tmp_path / "latin.csv"
        path.write_bytes(text.encode("latin-1"))
        line = fails("score", path, "-t", "a", "-p", "b")
        offset = text.index("\xe9")
        assert f"file '{path}' is not UTF-8 text: byte 0xE9 at offset {offset}" in line
        assert "(line 3)" in line and "--encoding cp1252" in line

    def test_in_the_header(self, tmp_path):
        path = tmp_path / "latin.csv"
        path.write_bytes(_ratings_text().replace("b\n", "b\xe9\n", 1).encode("latin-1"))
        line = fails("score", path, "-t", "a", "-p", "b")
        assert "byte 0xE9 at offset 3 (line 1)" in line

    def test_in_a_compressed_file(self, tmp_path):
        path = tmp_path / "latin.csv.gz"
        path.write_bytes(gzip.compress(_ratings_text().replace("a,b", "a,b\xe9").encode("latin-1")))
        line = fails("score", path, "-t", "a", "-p", "b\xe9")
        assert "byte 0xE9 at offset 3 of its decompressed text (line 1)" in line

    def test_encoding_option_reads_it(self, tmp_path):
        text = "note;é;b\n" + "".join(
            f"café;{x};{y}\n" for x, y in zip(RATER1, RATER2, strict=True)
        )
        path = tmp_path / "win.csv"
        path.write_bytes(text.encode("cp1252"))
        out = as_json("score", path, "-t", "é", "-p", "b", "--sep", ";", "--encoding", "cp1252")
        assert out["statistic"] == KAPPA and out["truth"] == "é"

    def test_byte_with_no_character_in_the_encoding(self, tmp_path):
        path = tmp_path / "win.csv"
        path.write_bytes(_ratings_text().replace("a,b", "a,b\x81").encode("latin-1"))
        line = fails("score", path, "-t", "a", "-p", "b", "--encoding", "cp1252")
        assert "is not cp1252 text: byte 0x81 at offset 3 (line 1)" in line

    def test_byte_order_mark_is_accepted(self, tmp_path):
        path = tmp_path / "bom.csv"
        path.write_bytes(b"\xef\xbb\xbf" + _ratings_text().encode())
        assert as_json("score", path, "-t", "a", "-p", "b")["statistic"] == KAPPA

    @pytest.mark.parametrize(
        ("name", "says"),
        [("utf-16", "does not write ASCII characters as ASCII does"), ("klingon", "unknown")],
    )
    def test_option_is_checked(self, tmp_path, name, says):
        path = write_file(tmp_path / "x.csv", _ratings_text())
        line = fails("score", path, "-t", "a", "-p", "b", "--encoding", name, code=2)
        assert "--encoding" in line and says in line

    def test_only_for_text(self, tmp_path):
        path = tmp_path / "x.parquet"
        pq.write_table(pa.table({"a": RATER1, "b": RATER2}), path)
        line = fails("score", path, "-t", "a", "-p", "b", "--encoding", "cp1252")
        assert "--encoding applies to text files" in line
        for option in (("--encoding", "cp1252"), ("--sheet", "x")):
            line = fails("score", path, "-t", "a", "-p", "b", "--engine", "dask", *option, code=2)
            assert f"Invalid value for {option[0]}: applies to the local engine only" in line

    def test_apply_writes_in_the_input_encoding(self, tmp_path):
        path = tmp_path / "in.csv"
        path.write_bytes("id,raw\nçà,0.5\nü,2.5\n".encode("latin-1"))
        spec = spec_file(tmp_path, thresholds=[1.0, 2.0], labels=["bas", "mé", "élevé"])
        target = tmp_path / "out.csv"
        args = ("thresholds", "apply", path, "-s", "raw", "--thresholds", spec, "-o", target)
        ok(*args, "--encoding", "latin-1")
        assert target.read_bytes() == "id,raw,raw_class\nçà,0.5,bas\nü,2.5,élevé\n".encode(
            "latin-1"
        )
        spec.write_text(json.dumps({"thresholds": [1.0, 2.0], "labels": ["低", "中", "高"]}))
        line = fails(*args, "--encoding", "latin-1", "--force")
        assert "'低' cannot be written in iso8859-1" in line and "Parquet" in line
        assert target.read_bytes().endswith("élevé\n".encode("latin-1"))  # left as it was


class TestNotText:
    def test_nul_bytes_on_standard_input(self):
        line = fails("score", "-", "-t", "a", "-p", "b", input=b"\0" * 2000)
        assert line == (
            "qwkit: error: standard input holds 2,000 bytes, all NUL: binary data, not "
            "CSV, TSV, Parquet or .xlsx."
        )

    def test_binary_data_in_a_file(self, tmp_path):
        path = tmp_path / "x.csv"
        path.write_bytes(b"a,b\n1,2\n" + bytes(range(256)))
        line = fails("score", path, "-t", "a", "-p", "b")
        assert "holds binary data (a NUL byte at offset 8)" in line

    def test_utf16(self, tmp_path):
        path = tmp_path / "x.csv"
        path.write_bytes(_ratings_text("\t").encode("utf-16"))
        assert "is UTF-16 text" in fails("score", path, "-t", "a", "-p", "b")
        line = fails("score", "-", "-t", "a", "-p", "b", input=_ratings_text().encode("utf-16-le"))
        assert "standard input is UTF-16 text" in line

    def test_old_excel_workbook_under_another_name(self, tmp_path):
        path = tmp_path / "x.csv"
        path.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 500)
        assert "is an old Excel workbook (.xls)" in fails("score", path, "-t", "a", "-p", "b")


@pytest.fixture
def workbook(tmp_path):
    """Two sheets: the anxiety ratings (with a score and a text column), and a second."""
    book = openpyxl.Workbook()
    first = book.active
    first.title = "ratings"
    first.append(["a", "b", "score", "note"])
    for i, (x, y) in enumerate(zip(RATER1, RATER2, strict=True)):
        first.append([x, y, x + (i % 5 - 2) / 5, None if i % 3 else f"n{i}"])
    second = book.create_sheet("other")
    second.append(["a", "b"])
    for x, y in zip(RATER2, RATER1, strict=True):
        second.append([x, y])
    path = tmp_path / "book.xlsx"
    book.save(path)
    return path


class TestWorkbooks:
    def test_first_sheet_by_default(self, workbook):
        assert as_json("score", workbook, "-t", "a", "-p", "b")["statistic"] == KAPPA

    def test_sheet_by_name(self, workbook):
        out = as_json("score", workbook, "-t", "a", "-p", "b", "--sheet", "other")
        assert out["statistic"] == qwkit.kappa_score(RATER2, RATER1)
        line = fails("score", workbook, "-t", "a", "-p", "b", "--sheet", "third")
        assert line.endswith("its sheets are: 'ratings', 'other'.")

    def test_a_rewritten_workbook_is_read_again(self, tmp_path):
        path = tmp_path / "book.xlsx"
        for pred in (RATER2, RATER1):
            book = openpyxl.Workbook()
            book.active.append(["a", "b"])
            for row in zip(RATER1, pred, strict=True):
                book.active.append(list(row))
            book.save(path)
            out = as_json("score", path, "-t", "a", "-p", "b")
            assert out["statistic"] == qwkit.kappa_score(RATER1, pred)

    def test_standard_input(self, workbook):
        out = as_json("score", "-", "-t", "a", "-p", "b", input=workbook.read_bytes())
        assert out["statistic"] == KAPPA

    def test_cells_are_checked_as_a_text_file_s(self, tmp_path):
        book = openpyxl.Workbook()
        book.active.append(["a", "b"])
        for row in ([1, 2], [2, None], [3, "x"], [None, None], [4, 4]):
            book.active.append(row)
        path = tmp_path / "cells.xlsx"
        book.save(path)
        assert "missing value in data row 2" in fails("score", path, "-t", "a", "-p", "b")
        line = fails("score", path, "-t", "a", "-p", "b", "--drop-missing")
        assert "data row 3 has 'x'" in line  # the empty row is skipped, as a blank line

    def test_thresholds_fit_and_apply(self, workbook, tmp_path):
        spec = tmp_path / "t.json"
        ok(
            "thresholds",
            "fit",
            workbook,
            "-t",
            "a",
            "-s",
            "score",
            "-o",
            spec,
            "--optimism",
            "none",
        )
        for name in ("rated.parquet", "rated.csv"):
            ok(
                "thresholds",
                "apply",
                workbook,
                "-s",
                "score",
                "--thresholds",
                spec,
                "-o",
                tmp_path / name,
            )
        table = pq.read_table(tmp_path / "rated.parquet")
        assert table.column_names == ["a", "b", "score", "note", "score_class"]
        assert table.column("a").to_pylist() == RATER1
        text = (tmp_path / "rated.csv").read_text().splitlines()
        assert text[0] == "a,b,score,note,score_class" and len(text) == 21

    @pytest.mark.parametrize("suffix", [".xls", ".ods"])
    def test_other_spreadsheets_are_refused_with_the_export(self, tmp_path, suffix):
        path = tmp_path / f"old{suffix}"
        path.write_bytes(b"not read")
        line = fails("score", path, "-t", "a", "-p", "b")
        assert "which qwkit does not read; save it as .xlsx or as CSV (UTF-8)" in line
        assert line.endswith(f"libreoffice --headless --convert-to xlsx {path}.")

    def test_sheet_is_for_workbooks(self, tmp_path):
        path = write_file(tmp_path / "x.csv", _ratings_text())
        assert "--sheet applies to .xlsx" in fails(
            "score", path, "-t", "a", "-p", "b", "--sheet", "x"
        )


def _european(tmp_path, name="eu.csv"):
    """Scores with decimal commas, ';'-separated, and the numbers they stand for."""
    rng = np.random.default_rng(20261121)
    y = rng.integers(1, 4, 40)
    s = np.round(y + rng.normal(0, 0.7, 40), 3)
    text = "id;grade;score\n" + "".join(
        f"{i:03d};{a};{str(float(b)).replace('.', ',')}\n"
        for i, (a, b) in enumerate(zip(y, s, strict=True))
    )
    return write_file(tmp_path / name, text), y, s


class TestSemicolons:
    def test_european_csv_just_works(self, tmp_path):
        path, y, s = _european(tmp_path)
        fit = ("thresholds", "fit", path, "-t", "grade", "-s", "score", "--optimism", "none")
        out = as_json(*fit)
        assert out == as_json(*fit, "--sep", ";", "--decimal", ",")
        assert out["statistic"] == qwkit.optimize_thresholds(y, s).statistic

    def test_apply_keeps_the_dialect(self, tmp_path):
        path, _, s = _european(tmp_path)
        spec = spec_file(tmp_path, **SPEC_1_2_3)
        target = tmp_path / "rated.csv"
        ok("thresholds", "apply", path, "-s", "score", "--thresholds", spec, "-o", target)
        lines = target.read_text().splitlines()
        assert lines[0] == "id;grade;score;score_class"
        classes = qwkit.apply_thresholds(s, [1.0, 2.0], labels=[1, 2, 3])
        expected = [
            f"{line};{c}"
            for line, c in zip(path.read_text().splitlines()[1:], classes, strict=True)
        ]
        assert lines[1:] == expected

    def test_integers_need_no_decimal_mark(self, tmp_path):
        path = write_file(tmp_path / "x.csv", _ratings_text(";"))
        assert as_json("score", path, "-t", "a", "-p", "b")["statistic"] == KAPPA

    @pytest.mark.parametrize(
        ("name", "text"),
        [("x.tsv", "a\ts\n1\t1,5\n2\t2,5\n"), ("x.csv", 'a,s\n1,"1,5"\n2,"2,5"\n')],
    )
    def test_decimal_commas_elsewhere_get_the_decimal_hint(self, tmp_path, name, text):
        path = write_file(tmp_path / name, text)
        fit = ("thresholds", "fit", path, "-t", "a", "-s", "s", "--optimism", "none")
        assert fails(*fit) == (
            "qwkit: error: column 's' must hold numbers; data row 1 has '1,5' (a decimal "
            "comma? --decimal ',' reads them where ',' does not separate)."
        )
        if name == "x.tsv":
            assert as_json(*fit, "--decimal", ",")["thresholds"] == [2.0]

    def test_otherwise_the_hint(self, tmp_path):
        # a header split by ';' but rows that are not: read with commas, and said so
        path = write_file(tmp_path / "x.csv", "a;s\n1;1,5\n2;2,5;x\n")
        line = fails("score", path, "-t", "a", "-p", "s")
        assert "try --sep ';' --decimal ','" in line


class TestRowsOfALongFile:
    """Issue 18: a parse error at data row 9,999,994 of a 10**7-row file must name that
    row. Blocks of 512 bytes make a 3,000-row file as long, in blocks, as that one (in
    pyarrow's 4 MiB blocks); comment lines and quoted line breaks come before it."""

    @pytest.mark.parametrize("engine", ["local", "dask"])
    def test_a_parse_error_in_a_later_block_names_its_data_row(self, tmp_path, monkeypatch, engine):
        from qwkit._integrations import _dask_files
        from qwkit.cli import _io

        monkeypatch.setattr(_io, "_BLOCK_BYTES", 1 << 9)
        monkeypatch.setattr(_dask_files, "CSV_BLOCK", 1 << 9)
        records = [
            f'{i % 5},{i % 3},"a\nb"' if i % 7 == 0 else f"{i % 5},{i % 3},c" for i in range(3000)
        ]
        records[2993] = "1,2,c,extra"
        comments = "# exported 2026-01-01\n# by hand\n" if engine == "local" else ""
        path = write_file(
            tmp_path / "long.csv", comments + "a,b,note\n" + "\n".join(records) + "\n"
        )
        line = fails("score", path, "-t", "a", "-p", "b", "--engine", engine)
        assert "data row 2994 has 4 field" in line, line


class TestNaNIsMissing:
    """A float NaN in a Parquet file is a missing value, as ``nan`` or an empty cell is in
    CSV (pyarrow reads those as null): it used to be refused as a non-finite rating."""

    def _both(self, tmp_path, columns: dict):
        table = pa.table({k: pa.array(v, type=pa.float64()) for k, v in columns.items()})
        parquet = tmp_path / "nan.parquet"
        pq.write_table(table, parquet)
        csv = tmp_path / "empty.csv"
        names = list(columns)
        rows = zip(*columns.values(), strict=True)
        lines = [",".join("" if np.isnan(v) else repr(v) for v in row) for row in rows]
        csv.write_text("\n".join([",".join(names), *lines]) + "\n")
        return parquet, csv

    def test_agreement_and_evaluate(self, tmp_path):
        nan = float("nan")
        cols = {
            "h1": [1, 2, 3, 4, 2, 3, 1, 2, 4, 3, 2, 1],
            "h2": [1, 2, 3, nan, 2, 3, 1, 2, 4, 2, nan, 1],
            "h3": [nan, 2, 2, 4, 2, 3, 2, 2, 4, 3, 2, 1],
            "m": [1.1, 2.2, 2.9, 3.8, 2.1, nan, 1.0, 2.0, 3.7, 3.1, 2.2, 1.2],
        }
        parquet, csv = self._both(tmp_path, cols)
        for args in (
            ("agreement", "-r", "h1,h2,h3", "--coefficient", "fleiss,krippendorff"),
            ("evaluate", "--human", "h1,h2,h3", "--machine", "m", "--nan-policy", "omit"),
        ):
            got = as_json(args[0], parquet, *args[1:])
            want = as_json(args[0], csv, *args[1:])
            got.pop("file"), want.pop("file")
            assert got == want
        line = fails("evaluate", parquet, "--human", "h1,h2", "--machine", "m")
        assert "column 'm' has no score in data row 6" in line

    def test_two_raters_need_drop_missing(self, tmp_path):
        nan = float("nan")
        parquet, _ = self._both(tmp_path, {"a": [1, 2, nan, 3, 2, 1], "b": [1, 2, 2, 3, 3, 1]})
        line = fails("score", parquet, "-t", "a", "-p", "b")
        assert "column 'a' has a missing value in data row 3" in line
        out = as_json("score", parquet, "-t", "a", "-p", "b", "--drop-missing")
        assert out["statistic"] == qwkit.kappa_score([1, 2, 3, 2, 1], [1, 2, 3, 3, 1])
        assert out["n_items"] == 5

    def test_infinity_is_still_refused(self, tmp_path):
        parquet, _ = self._both(tmp_path, {"a": [1, 2, float("inf")], "b": [1.0, 2, 2]})
        line = fails("agreement", parquet, "-r", "a,b")
        assert "column 'a' must hold finite ratings; data row 3 has inf" in line
