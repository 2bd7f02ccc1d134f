"""The command line's files: what ``thresholds apply`` writes (the input, byte for byte,
plus a column), repeated columns, wide scales, thresholds files, outputs written whole
or not at all, comment lines, quoted line breaks, output formats, Parquet types.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

import qwkit
import qwkit.economics
from cli_helpers import (
    ANXIETY,
    SPEC_1_2_3,
    as_json,
    fails,
    ok,
    run,
    spec_file,
    write_file,
)
from qwkit.cli import _io, _output


class TestApplyKeepsTheFile:
    """`thresholds apply` appends one column and keeps every other byte."""

    def test_text_output_is_the_input_plus_one_field(self, tmp_path):
        lines = [
            "\ufeff# provenance, with a comma\r\n",
            "# second note\r\n",
            "\r\n",
            '"id","zip",raw,note,x\r\n',
            "007,01234,1.5,NA,1.10\r\n",
            '008,00001,2.5,"a, b",\r\n',
            '009,99999,0.5,"multi\r\nline ""quoted""",3\r\n',
            "\r\n",
            "010,12345,0.2,#,x",  # no newline at the end
        ]
        path = write_file(tmp_path / "in.csv", "".join(lines))
        spec = spec_file(tmp_path, **SPEC_1_2_3)
        target = tmp_path / "out.csv"
        ok("thresholds", "apply", path, "-s", "raw", "--thresholds", spec, "-o", target)
        expected = [
            *lines[:3],
            '"id","zip",raw,note,x,raw_class\r\n',
            "007,01234,1.5,NA,1.10,2\r\n",
            '008,00001,2.5,"a, b",,3\r\n',
            '009,99999,0.5,"multi\r\nline ""quoted""",3,1\r\n',
            "\r\n",
            "010,12345,0.2,#,x,1",
        ]
        assert target.read_bytes() == "".join(expected).encode("utf-8")

    def test_other_separator_keeps_every_field(self, tmp_path):
        text = 'id,raw,note\n007,1.5,"a, b"\n008,2.5,"tab\there"\n009,0.5,\n'
        path = write_file(tmp_path / "in.csv", text)
        spec = spec_file(tmp_path, **SPEC_1_2_3)
        target = tmp_path / "out.tsv"
        ok("thresholds", "apply", path, "-s", "raw", "--thresholds", spec, "-o", target)
        assert target.read_text() == (
            'id\traw\tnote\traw_class\n007\t1.5\ta, b\t2\n008\t2.5\t"tab\there"\t3\n009\t0.5\t\t1\n'
        )

    def test_big_file_in_batches(self, tmp_path):
        # more than one 4 MiB read: the batched path must match line for line
        rng = np.random.default_rng(20261121)
        scores = rng.normal(1.5, 1.0, 300_000)
        body = "".join(f"{i:07d},{s:.5f},x\n" for i, s in enumerate(scores))
        path = write_file(tmp_path / "big.csv", "# note\nid,raw,tag\n" + body)
        spec = spec_file(tmp_path, **SPEC_1_2_3)
        target = tmp_path / "out.csv"
        ok("thresholds", "apply", path, "-s", "raw", "--thresholds", spec, "-o", target)
        classes = qwkit.apply_thresholds(np.round(scores, 5), [1.0, 2.0], labels=[1, 2, 3])
        out_lines = target.read_text().splitlines()
        in_lines = path.read_text().splitlines()
        assert out_lines[:2] == ["# note", "id,raw,tag,raw_class"]
        assert [line.rsplit(",", 1)[0] for line in out_lines[2:]] == in_lines[2:]
        assert [int(line.rsplit(",", 1)[1]) for line in out_lines[2:]] == classes.tolist()

    def test_drop_missing_drops_the_lines(self, tmp_path):
        path = write_file(tmp_path / "in.csv", "id,raw\n007,1.5\n008,\n009,  \n010,NA\n011,2.5\n")
        spec = spec_file(tmp_path, **SPEC_1_2_3)
        target = tmp_path / "out.csv"
        result = ok(
            "thresholds",
            "apply",
            path,
            "-s",
            "raw",
            "--thresholds",
            spec,
            "-o",
            target,
            "--drop-missing",
        )
        assert target.read_text() == "id,raw,raw_class\n007,1.5,2\n011,2.5,3\n"
        assert "; 3 rows with a missing score dropped" in result.stderr

    def test_parquet_keeps_column_types(self, tmp_path):
        table = pa.table(
            {
                "small": pa.array([1, 2, 3], pa.int8()),
                "when": pa.array([0, 1, 2], pa.timestamp("ms")),
                "kind": pa.array(["a", "b", "a"]).dictionary_encode(),
                "zip": pa.array(["01234", "00001", "99999"]),
                "raw": pa.array([0.5, 1.5, 2.5], pa.float32()),
            }
        )
        path = tmp_path / "in.parquet"
        pq.write_table(table, path)
        spec = spec_file(tmp_path, **SPEC_1_2_3)
        target = tmp_path / "out.parquet"
        ok("thresholds", "apply", path, "-s", "raw", "--thresholds", spec, "-o", target)
        written = pq.read_table(target)
        assert written.schema.remove(5).equals(table.schema)
        assert written.drop_columns(["raw_class"]).equals(table)
        assert written["raw_class"].to_pylist() == [1, 2, 3]
        csv_target = tmp_path / "out.csv"
        ok("thresholds", "apply", path, "-s", "raw", "--thresholds", spec, "-o", csv_target)
        assert csv_target.read_text().splitlines()[0] == "small,when,kind,zip,raw,raw_class"
        back = pacsv.read_csv(
            csv_target, convert_options=pacsv.ConvertOptions(column_types={"zip": pa.string()})
        )
        assert back["zip"].to_pylist() == ["01234", "00001", "99999"]
        assert back["raw_class"].to_pylist() == [1, 2, 3]

    def test_drop_missing_reports_the_file_row(self, tmp_path):
        path = write_file(tmp_path / "in.csv", "raw\n1\n\n 1.5\n  \n2\nx\n")
        line = fails(
            "thresholds",
            "apply",
            path,
            "-s",
            "raw",
            "--thresholds",
            spec_file(tmp_path, **SPEC_1_2_3),
            "-o",
            tmp_path / "o.csv",
            "--drop-missing",
        )
        # the empty line is no row; '  ' is data row 3 (missing, dropped); 'x' is row 5
        assert "data row 5 has 'x'" in line
        assert not (tmp_path / "o.csv").exists()


class TestDuplicateColumns:
    @pytest.mark.parametrize("suffix", [".csv", ".parquet"])
    def test_repeated_column_is_an_error(self, tmp_path, suffix):
        path = tmp_path / f"dup{suffix}"
        if suffix == ".csv":
            write_file(path, "raw,raw,g\n1,2,1\n2,3,2\n")
        else:
            pq.write_table(pa.table([[1, 2], [2, 3], [1, 2]], names=["raw", "raw", "g"]), path)
        line = fails("score", path, "-t", "g", "-p", "raw")
        assert line == f"qwkit: error: column 'raw' appears 2 times in '{path}'; rename the copies."
        spec = spec_file(tmp_path, thresholds=[1.5])
        line = fails(
            "thresholds", "apply", path, "-s", "raw", "--thresholds", spec, "-o", tmp_path / "o.csv"
        )
        assert "column 'raw' appears 2 times" in line
        assert not (tmp_path / "o.csv").exists()

    def test_unused_repeated_columns_are_kept(self, tmp_path):
        path = write_file(tmp_path / "dup.csv", "x,x,raw\na,b,1.5\n")
        target = tmp_path / "o.csv"
        spec = spec_file(tmp_path, thresholds=[1.0])
        ok("thresholds", "apply", path, "-s", "raw", "--thresholds", spec, "-o", target)
        assert target.read_text() == "x,x,raw,raw_class\na,b,1.5,1\n"


class TestWideScale:
    def test_score_skips_the_confusion_matrix(self, tmp_path):
        path = write_file(
            tmp_path / "wide.csv", "g,m\n0,0\n1000000000000,1000000000000\n0,1000000000000\n5,0\n"
        )
        y = [0, 10**12, 0, 5]
        p = [0, 10**12, 10**12, 0]
        out = as_json("score", path, "-t", "g", "-p", "m")
        with pytest.warns(qwkit.ScaleWarning, match="because of 1000000000000"):
            assert out["statistic"] == qwkit.kappa_score(y, p)
        with pytest.warns(qwkit.ScaleWarning, match="because of 1000000000000"):
            assert out["statistic"] == qwkit.kappa_test(y, p).statistic
        assert round(out["statistic"], 6) == 0.5
        assert (out["confusion"], out["labels"], out["n_labels"]) == (None, None, 10**12 + 1)
        result = ok("score", path, "-t", "g", "-p", "m")
        assert "confusion matrix not shown" in result.stdout and "0.5000" in result.stdout
        # 10**12 among 0 and 5 looks like a missing-value code: one line on stderr
        line = result.stderr.strip().splitlines()[0]
        assert line.startswith("qwkit: warning: The rating scale was inferred as the integers")
        assert "because of 1000000000000" in line and "pass --labels" in line

    def test_table_up_to_30_labels_json_beyond(self, tmp_path):
        path = write_file(tmp_path / "w.csv", "g,m\n0,0\n40,40\n0,40\n")
        text = ok("score", path, "-t", "g", "-p", "m").stdout
        assert "(41×41 confusion matrix not shown; see --json)" in text
        out = as_json("score", path, "-t", "g", "-p", "m")
        assert np.array(out["confusion"]).shape == (41, 41)

    def test_report_on_a_wide_scale_is_an_error(self, tmp_path):
        path = write_file(tmp_path / "w.csv", "g,m\n0,0\n1000,1000\n0,1000\n")
        line = fails("report", path, "-t", "g", "-p", "m", "-o", tmp_path / "r.html")
        assert "1,001 integer labels" in line
        assert not (tmp_path / "r.html").exists()


class TestThresholdsFile:
    def _apply(self, tmp_path, spec):
        return fails(
            "thresholds",
            "apply",
            ANXIETY,
            "-s",
            "rater2",
            "--thresholds",
            spec,
            "-o",
            tmp_path / "o.csv",
        )

    @pytest.mark.parametrize(
        "content, message",
        [
            ('{"thresholds": [' + "9" * 400 + "]}", '"thresholds" must be a list of numbers'),
            ('{"thresholds": [1.5], "labels": [1, ' + "9" * 30 + "]}", "int64 range"),
            ('{"thresholds": [true]}', '"thresholds" must be a list of numbers'),
            ('{"thresholds": [1.5], "labels": [true, false]}', "true/false are neither"),
            ('{"thresholds": [1.5], "labels": [1, "a"]}', "all numbers or all text"),
            ('{"thresholds": "1.5"}', '"thresholds" must be a list of numbers'),
            ('{"thresholds": [2.0, 1.0]}', "non-decreasing"),
            ('{"thresholds": [1.0], "labels": [1, 2, 3]}', "one more entry"),
        ],
    )
    def test_bad_file_is_named(self, tmp_path, content, message):
        spec = tmp_path / "t.json"
        spec.write_text(content)
        line = self._apply(tmp_path, spec)
        assert f"thresholds file '{spec}'" in line and message in line
        assert sorted(p.name for p in tmp_path.iterdir()) == ["t.json"]

    def test_folder(self, tmp_path):
        folder = tmp_path / "adir"
        folder.mkdir()
        assert "is a folder" in self._apply(tmp_path, folder)

    def test_report_uses_the_text_labels_of_the_file(self, tmp_path):
        names = np.array(["low", "mid", "high"])
        rng = np.random.default_rng(20261121)
        y = rng.integers(0, 3, 200)
        s = np.round(y + rng.normal(0, 0.7, 200), 3)
        path = write_file(
            tmp_path / "sl.csv",
            "grade,score\n" + "".join(f"{names[a]},{b}\n" for a, b in zip(y, s, strict=True)),
        )
        spec = tmp_path / "sl.json"
        ok(
            "thresholds",
            "fit",
            path,
            "-t",
            "grade",
            "-s",
            "score",
            "--labels",
            "low,mid,high",
            "-o",
            spec,
        )
        target = tmp_path / "r.html"
        result = ok(
            "report",
            path,
            "-t",
            "grade",
            "-s",
            "score",
            "--thresholds",
            spec,
            "-o",
            target,
            "--n-resamples",
            "200",
        )
        fit = qwkit.optimize_thresholds(names[y], s, labels=names)
        kappa = qwkit.kappa_score(names[y], fit.predict(s), labels=names)
        assert f"kappa {kappa:.4f}" in result.stdout
        text = target.read_text()
        assert "low, mid, high" in text


class TestOutputs:
    def test_demo_checks_its_report_path_first(self, tmp_path):
        (tmp_path / "d1" / "report.html").mkdir(parents=True)
        result = run("demo", "--output", tmp_path / "d1")
        assert result.exit_code == 1
        assert result.stdout == ""  # failed before the work, not after printing it
        assert result.stderr.strip() == (
            f"qwkit: error: cannot write '{tmp_path / 'd1' / 'report.html'}': it is a folder."
        )

    def test_economics_checks_its_targets_first(self, tmp_path):
        out = tmp_path / "e4"
        (out / "economics_wine.png").mkdir(parents=True)
        line = fails("economics", "--output", out, "--n-repeats", "1")
        assert line == f"qwkit: error: cannot write '{out / 'economics_wine.png'}': it is a folder."
        assert [p.name for p in out.iterdir()] == ["economics_wine.png"]

    def test_staged_outputs_all_or_nothing(self, tmp_path):
        (tmp_path / "keep.txt").write_text("old")
        folder = _output.plan_folder(str(tmp_path), option="--output")

        def targets():
            return {
                n: folder.file(n, kind=_output.REPORT, force=True) for n in ("keep.txt", "b.txt")
            }

        with pytest.raises(RuntimeError), _output.staged_outputs(folder, targets()) as stage:
            (stage / "keep.txt").write_text("new")
            (stage / "b.txt").write_text("new")
            raise RuntimeError("boom")
        assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]
        assert (tmp_path / "keep.txt").read_text() == "old"
        with _output.staged_outputs(folder, targets()) as stage:
            (stage / "keep.txt").write_text("new")
            (stage / "b.txt").write_text("new")
        assert sorted(p.name for p in tmp_path.iterdir()) == ["b.txt", "keep.txt"]
        assert (tmp_path / "keep.txt").read_text() == "new"

    def test_symlink_is_written_through_and_mode_kept(self, tmp_path):
        real = tmp_path / "real.json"
        ok("thresholds", "fit", ANXIETY, "-t", "rater1", "-s", "rater1", "-o", real)
        real.chmod(0o600)
        link = tmp_path / "link.json"
        link.symlink_to(real.name)
        ok("thresholds", "fit", ANXIETY, "-t", "rater1", "-s", "rater2", "-o", link)
        assert link.is_symlink() and link.resolve() == real
        assert json.loads(real.read_text())["score"] == "rater2"
        assert real.stat().st_mode & 0o777 == 0o600
        assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "real.json"]

    @pytest.mark.parametrize(
        "level, shown", [(0.95, "95% CI"), (0.9995, "99.95% CI"), (0.999, "99.9% CI")]
    )
    def test_confidence_level_digits(self, level, shown):
        text = ok("score", ANXIETY, "-t", "rater1", "-p", "rater2", "--ci", level).stdout
        assert shown in text


class TestCommentLines:
    def test_header_whose_first_column_is_hash(self, tmp_path):
        path = write_file(tmp_path / "h.csv", "#,grade,model\n1,1,2\n2,3,3\n3,2,2\n")
        out = as_json("score", path, "-t", "grade", "-p", "model")
        assert out["n_items"] == 3 and out["statistic"] == pytest.approx(
            qwkit.kappa_score([1, 3, 2], [2, 3, 2]), rel=1e-12
        )

    def test_comment_after_a_byte_order_mark(self, tmp_path):
        path = write_file(
            tmp_path / "b.csv", "\ufeff# note, with a comma\ngrade,model\n1,2\n3,3\n2,2\n"
        )
        out = as_json("score", path, "-t", "grade", "-p", "model")
        assert out["n_items"] == 3 and out["statistic"] == pytest.approx(
            qwkit.kappa_score([1, 3, 2], [2, 3, 2]), rel=1e-12
        )


def _multiline_csv(path: Path, n: int) -> tuple[Path, np.ndarray, np.ndarray]:
    """Every other 'note' is a quoted field with a line break in it."""
    rng = np.random.default_rng(20261121)
    grade = rng.integers(1, 6, n)
    raw = grade + rng.normal(0.0, 0.8, n)
    lines = ["note,grade,raw,grade2"]
    for i in range(n):
        note = '"two\nlines, ""quoted"""' if i % 2 == 0 else "x"
        lines.append(f"{note},{grade[i]},{float(raw[i])!r},{grade[i]}")
    write_file(path, "\n".join(lines) + "\n")
    return path, grade, raw


class TestQuotedLineBreaks:
    """A quoted field may hold a line break wherever it falls in the blocks read."""

    @pytest.mark.parametrize("block", [97, 1 << 10, 1 << 22])
    def test_score_and_apply(self, tmp_path, monkeypatch, block):
        monkeypatch.setattr(_io, "_BLOCK_BYTES", block)
        path, _, raw = _multiline_csv(tmp_path / "ml.csv", 3000)
        out = as_json("agreement", path, "-r", "grade,grade2", "--coefficient", "fleiss")
        assert out["coefficients"][0]["n_items"] == 3000
        assert out["coefficients"][0]["statistic"] == 1.0
        spec = tmp_path / "t.json"
        ok("thresholds", "fit", path, "-t", "grade", "-s", "raw", "-o", spec)
        cuts = json.loads(spec.read_text())["thresholds"]
        expected = qwkit.apply_thresholds(raw, cuts, labels=[1, 2, 3, 4, 5])
        for suffix in (".csv", ".tsv", ".parquet"):
            target = tmp_path / f"out{suffix}"
            ok("thresholds", "apply", path, "-s", "raw", "--thresholds", spec, "-o", target)
            if suffix == ".parquet":
                table = pq.read_table(target)
            else:
                table = pacsv.read_csv(
                    target,
                    parse_options=pacsv.ParseOptions(
                        delimiter="\t" if suffix == ".tsv" else ",", newlines_in_values=True
                    ),
                )
            assert table.num_rows == 3000
            np.testing.assert_array_equal(table.column("raw_class").to_numpy(), expected)
            assert table.column("note")[0].as_py() == 'two\nlines, "quoted"'
        # the CSV copy keeps the input's bytes, one field more per line
        copied = (tmp_path / "out.csv").read_text()
        assert copied.startswith('note,grade,raw,grade2,raw_class\n"two\nlines, ""quoted""",')

    @pytest.mark.parametrize("block", [97, 1 << 10])
    def test_parse_error_names_its_data_row_in_a_later_block(self, tmp_path, monkeypatch, block):
        # rows are counted as records (a quoted line break counts once) from the first row
        # below the header, comment lines above it not counted, whatever block holds them
        monkeypatch.setattr(_io, "_BLOCK_BYTES", block)
        records = ['"two\nlines",1,1' if i % 2 == 0 else "x,2,2" for i in range(3000)]
        records[2993] = "x,2,2,extra"  # data row 2,994, on line 2 + 2 + 2,993 + 1,497
        path = write_file(
            tmp_path / "ml.csv", "# provenance\n# two lines\nnote,grade,raw\n" + "\n".join(records)
        )
        line = fails("score", path, "-t", "grade", "-p", "raw")
        assert line == (
            f"qwkit: error: could not read '{path}' as delimited text: data row 2994 has 4 "
            "field(s) where the header has 3 (a value that holds the separator must be quoted)."
        )
        records[2993] = "x,2,y"  # a value that is not a number, in the same place
        write_file(path, "# provenance\nnote,grade,raw\n" + "\n".join(records))
        line = fails("score", path, "-t", "grade", "-p", "raw")
        assert "column 'raw' must hold numbers; data row 2994 has 'y'" in line


class TestApplyOutputFormat:
    def test_unknown_extension_is_refused(self, tmp_path):
        path = write_file(tmp_path / "in.csv", "id,raw\n1,1.5\n2,2.5\n")
        spec = spec_file(tmp_path, **SPEC_1_2_3)
        for name in ("out.xlsx", "out.txt"):
            line = fails(
                "thresholds",
                "apply",
                path,
                "-s",
                "raw",
                "--thresholds",
                spec,
                "-o",
                tmp_path / name,
            )
            assert "cannot tell the format of the output" in line
            assert not (tmp_path / name).exists()

    def test_other_extension_with_sep(self, tmp_path):
        path = write_file(tmp_path / "in.txt", "id;raw\n1;1.5\n2;2.5\n")
        spec = spec_file(tmp_path, **SPEC_1_2_3)
        target = tmp_path / "out.txt"
        ok(
            "thresholds",
            "apply",
            path,
            "-s",
            "raw",
            "--thresholds",
            spec,
            "-o",
            target,
            "--sep",
            ";",
        )
        assert target.read_text() == "id;raw;raw_class\n1;1.5;2\n2;2.5;3\n"

    def test_class_counts_in_scale_order(self, tmp_path):
        path = write_file(tmp_path / "in.csv", "raw\n0.5\n1.5\n1.6\n2.5\n2.6\n2.7\n")
        spec = spec_file(tmp_path, thresholds=[1.0, 2.0], labels=["low", "mid", "high"])
        result = ok(
            "thresholds", "apply", path, "-s", "raw", "--thresholds", spec, "-o", tmp_path / "o.csv"
        )
        assert "6 rows, column 'raw_class' (low: 1, mid: 2, high: 3)" in result.stderr


class TestParquetTypes:
    def test_decimal_columns(self, tmp_path):
        import decimal

        path = tmp_path / "d.parquet"
        y = [1, 2, 3, 2, 1, 3]
        p = [1, 2, 2, 2, 1, 3]
        table = pa.table(
            {
                "y": pa.array([decimal.Decimal(v) for v in y], pa.decimal128(5, 0)),
                "p": pa.array([decimal.Decimal(v) for v in p], pa.decimal128(5, 0)),
                "s": pa.array([decimal.Decimal(f"{v}.25") for v in p], pa.decimal128(6, 2)),
                "half": pa.array([decimal.Decimal("1.50")] * 6, pa.decimal128(4, 2)),
            }
        )
        pq.write_table(table, path)
        out = as_json("score", path, "-t", "y", "-p", "p")
        assert out["statistic"] == pytest.approx(qwkit.kappa_score(y, p), rel=1e-12)
        fit = as_json("thresholds", "fit", path, "-t", "y", "-s", "s")
        ref = qwkit.optimize_thresholds(y, np.array(p) + 0.25)
        assert fit["statistic"] == pytest.approx(ref.statistic, rel=1e-12)
        line = fails("score", path, "-t", "y", "-p", "half")
        assert "must hold integer ratings" in line and "1.5" in line

    def test_bool_columns_with_text_labels(self, tmp_path):
        path = tmp_path / "b.parquet"
        y = [False, True, True, False, True]
        p = [False, True, False, False, True]
        pq.write_table(pa.table({"y": y, "p": p}), path)
        ref = qwkit.kappa_score(np.array(y, int), np.array(p, int))
        for labels in ("False,True", "false,true"):
            out = as_json("score", path, "-t", "y", "-p", "p", "--labels", labels)
            assert out["statistic"] == pytest.approx(ref, rel=1e-12)
            assert out["labels"] == labels.split(",")
        assert as_json("score", path, "-t", "y", "-p", "p")["statistic"] == pytest.approx(ref)
        # the same as a CSV file spelling them True/False
        csv_path = write_file(
            tmp_path / "b.csv", "y,p\n" + "".join(f"{a},{b}\n" for a, b in zip(y, p, strict=True))
        )
        out = as_json("score", csv_path, "-t", "y", "-p", "p", "--labels", "False,True")
        assert out["statistic"] == pytest.approx(ref, rel=1e-12)
