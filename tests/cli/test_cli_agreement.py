"""``qwkit agreement``: many raters, wide and long files, missing ratings, several
coefficients, each rater (``--by-rater``), repeated ratings (``--duplicates``), and a
report that stays small for a crowd (the pairwise heatmap only up to 40 raters).

Data (provenance in each file's first line, which the CLI skips as a comment): R irr
0.84.1's ``diagnoses`` (Fleiss 1971: six psychiatrists, 30 patients), ``anxiety`` (three
raters, 20 items) and R psy 1.2's ``expsy`` (three clinicians, 30 patients, NA present).
"""

from __future__ import annotations

import json
import re

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

import qwkit
from cli_helpers import ANXIETY, DATA, fails, ok, run
from qwkit.cli._display import plain

DIAGNOSES = DATA / "irr_diagnoses_codes.csv"
EXPSY = DATA / "psy_expsy_r1_r2_r3.csv"
SIX = "rater1,rater2,rater3,rater4,rater5,rater6"
COEFFICIENTS = ["fleiss", "conger", "krippendorff", "gwet", "brennan-prediger", "light"]


def _matrix(path):
    table = pacsv.read_csv(path, read_options=pacsv.ReadOptions(skip_rows=1))
    cols = [np.array(table.column(c).to_pylist(), dtype=float) for c in table.column_names]
    return np.column_stack(cols), table.column_names


def as_json(*args):
    return json.loads(ok(*args, "--json").stdout)


class TestPublishedValues:
    def test_fleiss_1971(self):
        # Fleiss (1971): kappa = 0.430; R irr 0.84.1 kappam.fleiss(diagnoses): z = 17.7;
        # kappam.fleiss(exact = TRUE) (Conger) 0.442, kappam.light 0.459
        out = as_json("agreement", DIAGNOSES, "--raters", SIX, "--weights", "identity")
        got = {c["coefficient"]: c for c in out["coefficients"]}
        assert list(got) == COEFFICIENTS
        fleiss = got["fleiss"]
        assert round(fleiss["statistic"], 3) == 0.430
        assert round(fleiss["statistic"] / fleiss["standard_error_null"], 1) == 17.7
        assert round(got["conger"]["statistic"], 3) == 0.442
        assert round(got["light"]["statistic"], 3) == 0.459
        assert (fleiss["n_items"], fleiss["n_raters"]) == (30, 6)

    def test_every_number_is_the_api_s(self):
        d, _ = _matrix(EXPSY)
        out = as_json(
            "agreement", EXPSY, "-r", "r1,r2,r3", "--coefficient", "gwet", "--method",
            "bootstrap", "--n-resamples", "500", "--ci", "0.9", "--seed", "3",
        )  # fmt: skip
        res = qwkit.agreement_test(d, coefficient="gwet")
        (only,) = out["coefficients"]
        expected = plain(res.to_dict())  # JSON has no nan: null
        assert {k: only[k] for k in expected} == expected
        ci = res.confidence_interval(0.9, method="bootstrap", n_resamples=500, rng=3)
        assert [only["ci_low"], only["ci_high"]] == list(ci)
        assert (out["format"], out["raters"], out["n_rows"]) == ("wide", ["r1", "r2", "r3"], 30)


class TestInputs:
    def test_missing_ratings_are_allowed(self):
        # expsy has NA: they are ratings not given, not errors
        d, _ = _matrix(EXPSY)
        assert np.isnan(d).any()
        out = as_json("agreement", EXPSY, "-r", "r1", "-r", "r2,r3", "--coefficient", "light")
        ref = qwkit.agreement_score(d, coefficient="light")
        assert out["coefficients"][0]["statistic"] == ref

    def test_long_format_equals_wide(self, tmp_path):
        d, names = _matrix(ANXIETY)
        rows = [(f"item{i:02d}", names[j], d[i, j]) for i in range(len(d)) for j in range(3)]
        rows = [r for k, r in enumerate(rows) if k % 7 != 3]  # some ratings not given
        long = tmp_path / "long.csv"
        pacsv.write_csv(
            pa.table(
                {
                    "item": [r[0] for r in rows],
                    "who": [r[1] for r in rows],
                    "grade": [int(r[2]) for r in rows],
                }
            ),
            long,
        )
        table = qwkit.ratings_from_long(
            [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]
        )
        args = ("--long", "--item", "item", "--rater", "who", "--rating", "grade")
        out = as_json("agreement", long, *args)
        for c in out["coefficients"]:
            ref = qwkit.agreement_test(table, coefficient=c["coefficient"])
            assert c["statistic"] == ref.statistic and c["standard_error"] == ref.standard_error
        assert out["format"] == "long" and out["raters"] == ["rater1", "rater2", "rater3"]

    def test_text_ratings(self, tmp_path):
        path = tmp_path / "t.csv"
        path.write_text(
            "item,rater,rating\nu1,ann,low\nu1,bob,low\nu1,cy,mid\nu2,ann,high\nu2,cy,high\n"
            "u3,ann,mid\nu3,bob,low\nu3,cy,mid\n"
        )
        args = ("--long", "--item", "item", "--rater", "rater", "--rating", "rating")
        out = as_json(
            "agreement", path, *args, "--labels", "low,mid,high", "--coefficient", "krippendorff"
        )
        # docs/agreement.md §10 (the krippendorff package gives 0.641026 too)
        assert round(out["coefficients"][0]["statistic"], 6) == 0.641026
        assert out["labels"] == ["low", "mid", "high"]
        # text without a scale: only unweighted agreement
        line = fails("agreement", path, *args)
        assert "pass the ordered scale with --labels" in line
        ok("agreement", path, *args, "--weights", "identity")

    def test_parquet_ordered_categories_are_the_scale(self, tmp_path):
        kind = pa.dictionary(pa.int8(), pa.string(), ordered=True)
        cats = pa.array(["low", "mid", "high"])
        codes = [[0, 1, 2, 1, 0], [0, 1, 2, 2, 0], [1, 1, 2, 1, None]]
        table = pa.table(
            {
                f"r{j}": pa.DictionaryArray.from_arrays(pa.array(c, pa.int8()), cats).cast(kind)
                for j, c in enumerate(codes)
            }
        )
        path = tmp_path / "c.parquet"
        pq.write_table(table, path)
        out = as_json("agreement", path, "-r", "r0,r1,r2", "--coefficient", "fleiss")
        ratings = np.array(
            [[["low", "mid", "high"][v] if v is not None else None for v in c] for c in codes],
            dtype=object,
        ).T
        ref = qwkit.agreement_score(ratings, coefficient="fleiss", labels=["low", "mid", "high"])
        assert out["coefficients"][0]["statistic"] == ref


class TestErrors:
    def test_rating_outside_the_scale_names_column_and_row(self):
        line = fails("agreement", EXPSY, "-r", "r1,r2,r3", "--labels", "1,2,3")
        d, names = _matrix(EXPSY)
        j, i = next((j, i) for j in range(3) for i in range(30) if d[i, j] == 4)
        assert line == (
            f"qwkit: error: column '{names[j]}' contains 4, which is not in --labels "
            f"[1, 2, 3] (data row {i + 1})."
        )

    def test_non_number_names_its_row(self, tmp_path):
        path = tmp_path / "b.csv"
        path.write_text("a,b\n1,2\n,3\n2,x\n")
        line = fails("agreement", path, "-r", "a,b")
        assert "column 'b' must hold numbers; data row 3 has 'x'" in line

    def test_rated_twice(self, tmp_path):
        path = tmp_path / "l.csv"
        path.write_text("i,r,v\n1,a,1\n1,b,2\n2,a,2\n1,a,3\n")
        line = fails("agreement", path, "--long", "--item", "i", "--rater", "r", "--rating", "v")
        assert "rater 'a' rated item '1' twice (data rows 1 and 4)" in line
        assert "--duplicates first|last" in line

    def test_no_item_with_two_ratings(self, tmp_path):
        path = tmp_path / "l.csv"
        path.write_text("a,b\n1,\n,2\n")
        line = fails("agreement", path, "-r", "a,b")
        assert "the table of ratings has no item with two or more ratings" in line

    @pytest.mark.parametrize(
        ("args", "hint"),
        [
            (["-r", "rater1"], "--raters"),
            (["-r", "rater1,rater1"], "--raters"),
            ([], "--raters"),
            (["--long", "--item", "i"], "--long"),
            (["--item", "i", "--rater", "r", "--rating", "v"], "--long"),
            (["--long", "-r", "a,b", "--item", "i", "--rater", "r", "--rating", "v"], "--raters"),
        ],
    )
    def test_usage_errors(self, args, hint):
        line = fails("agreement", ANXIETY, *args, code=2)
        assert hint in line


class TestOutput:
    def test_table_lists_every_coefficient(self):
        text = ok("agreement", DIAGNOSES, "-r", SIX, "--weights", "identity").stdout
        for name in ("Fleiss' kappa", "Conger's kappa", "Krippendorff's alpha", "Light's kappa"):
            assert name in text
        assert "0.4302" in text and "30 items, 6 raters; p-values" in text

    def test_report_heatmap_of_pairs(self, tmp_path):
        target = tmp_path / "a.html"
        result = ok("agreement", EXPSY, "-r", "r1,r2,r3", "--report", target)
        assert f"wrote {target}" in " ".join(result.stdout.split())
        page = target.read_text()
        # each rater's agreement and its distribution, then the pairs' heatmap
        assert page.count("<img") == 2 and "Agreement of each pair of raters" in page
        assert "Agreement of each rater with the others" in page
        # the pairs' kappas in the table are kappa_score on the items both rated, and
        # Light's kappa is their mean
        d, _ = _matrix(EXPSY)
        kappas = []
        for g, h in ((0, 1), (0, 2), (1, 2)):
            both = ~np.isnan(d[:, g]) & ~np.isnan(d[:, h])
            kappas.append(qwkit.kappa_score(d[both, g].astype(int), d[both, h].astype(int)))
            assert f"{kappas[-1]:.4f}" in page
        light = qwkit.agreement_score(d, coefficient="light")
        assert light == pytest.approx(np.mean(kappas), rel=1e-12)
        cells = re.findall(r"<td class=\"num\">([0-9,]+)</td>", page)
        assert "29" in cells  # r1 and r2 share 29 items (r1 has one NA)

    def test_report_is_refused_over_an_input(self, tmp_path):
        copy = tmp_path / "e.csv"
        copy.write_bytes(EXPSY.read_bytes())
        fails("agreement", copy, "-r", "r1,r2,r3", "--report", copy)
        assert copy.read_bytes() == EXPSY.read_bytes()

    def test_report_to_stdout_and_json_conflict(self):
        fails("agreement", EXPSY, "-r", "r1,r2,r3", "--report", "-", "--json", code=2)

    def test_bootstrap_progress_on_a_terminal(self):
        result = run(
            "agreement", EXPSY, "-r", "r1,r2,r3", "--coefficient", "fleiss", "--method",
            "percentile", "--n-resamples", "300", "--json", env={"TTY_COMPATIBLE": "1"},
        )  # fmt: skip
        assert result.exit_code == 0, result.stderr
        assert "300/300" in result.stderr
        json.loads(result.stdout)


class TestSeveralCoefficients:
    def test_a_list_of_coefficients(self):
        out = as_json("agreement", ANXIETY, "-r", "rater1,rater2,rater3", "--coefficient",
                      "krippendorff, fleiss,krippendorff")  # fmt: skip
        assert [c["coefficient"] for c in out["coefficients"]] == ["krippendorff", "fleiss"]

    def test_all_and_more(self):
        # 'all' is the six chance-corrected coefficients: others may be added to it
        out = as_json("agreement", ANXIETY, "-r", "rater1,rater2,rater3", "--coefficient",
                      "all,percent,icc-A1,fleiss")  # fmt: skip
        names = [c["coefficient"] for c in out["coefficients"]]
        assert names == [*COEFFICIENTS, "percent", "icc-A1"]

    @pytest.mark.parametrize(
        ("value", "said"),
        [("kappa", "unknown coefficient 'kappa'"), ("all,icc2", "unknown coefficient 'icc2'"),
         (",", "name")],
    )  # fmt: skip
    def test_bad_lists(self, value, said):
        line = fails("agreement", ANXIETY, "-r", "rater1,rater2,rater3", "--coefficient", value,
                     code=2)  # fmt: skip
        assert "--coefficient" in line and said in line


class TestCrowds:
    @staticmethod
    def _crowd(tmp_path, n_raters=60, duplicate=False):
        rng = np.random.default_rng(20261121)
        rows = []
        for i in range(400):
            latent = rng.normal()
            for g in rng.choice(n_raters, 4, replace=False):
                value = int(np.clip(np.rint(3 + latent + rng.normal(0, 0.5)), 1, 5))
                if g < 3:  # three raters who answer at random
                    value = int(rng.integers(1, 6))
                rows.append((f"item{i}", f"w{g:03d}", value))
        if duplicate:
            rows.append((rows[0][0], rows[0][1], 5))
        path = tmp_path / "crowd.csv"
        path.write_text("item,worker,grade\n" + "".join(f"{a},{b},{c}\n" for a, b, c in rows))
        return path, rows

    LONG = ("--long", "--item", "item", "--rater", "worker", "--rating", "grade")

    def test_by_rater_is_the_api_s(self, tmp_path):
        path, rows = self._crowd(tmp_path)
        out = as_json("agreement", path, *self.LONG, "--by-rater", "--coefficient", "fleiss")
        items, raters, values = zip(*rows, strict=True)
        table = qwkit.ratings_from_long(items, raters, values)
        ref = qwkit.rater_agreement(table).to_dict()
        assert out["by_rater"]["raters"] == plain(ref["raters"])
        text = ok("agreement", path, *self.LONG, "--by-rater").stdout
        assert "each rater against the others" in text and "the 10 lowest and 10 highest" in text
        lowest = {r["rater"] for r in sorted(ref["raters"], key=lambda r: r["statistic"])[:3]}
        assert lowest == {"w000", "w001", "w002"}  # the careless raters

    def test_by_rater_names_the_columns_of_a_wide_file(self, tmp_path):
        # the wide format's array gave the raters as positions 0, 1, 2 in every output
        d, _ = _matrix(EXPSY)
        out = as_json("agreement", EXPSY, "-r", "r3,r1", "--by-rater", "--coefficient", "fleiss")
        ref = qwkit.rater_agreement(d[:, [2, 0]]).to_dict()
        assert [r["rater"] for r in out["by_rater"]["raters"]] == ["r3", "r1"]
        for got, want in zip(out["by_rater"]["raters"], ref["raters"], strict=True):
            assert got["statistic"] == want["statistic"]
        text = ok("agreement", EXPSY, "-r", "r1,r2,r3", "--by-rater").stdout
        assert all(re.search(rf"│ {name}\s+│", text) for name in ("r1", "r2", "r3"))
        report = tmp_path / "r.html"
        ok("agreement", EXPSY, "-r", "r1,r2,r3", "--report", report)
        page = report.read_text()
        assert "<td>r1</td>" in page or ">r1<" in page

    def test_icc_of_text_ratings_on_labels_is_the_icc_of_their_positions(self, tmp_path):
        words = {1: "low", 2: "mid", 3: "high"}
        rows = [(1, 3, 2), (3, 3, 3), (1, 1, 2), (2, 2, None), (1, 2, 1), (3, 2, 3)]
        text, numbers = tmp_path / "text.csv", tmp_path / "numbers.csv"
        show = lambda v, f: "" if v is None else str(f(v))  # noqa: E731
        text.write_text("a,b,c\n" + "".join(",".join(show(v, words.get) for v in r) + "\n"
                                            for r in rows))  # fmt: skip
        numbers.write_text("a,b,c\n" + "".join(",".join(show(v, int) for v in r) + "\n"
                                               for r in rows))  # fmt: skip
        iccs = "icc-A1,icc-C1,icc-1k"
        want = as_json("agreement", numbers, "-r", "a,b,c", "--coefficient", iccs)
        got = as_json("agreement", text, "-r", "a,b,c", "--labels", "low,mid,high",
                      "--coefficient", iccs)  # fmt: skip
        assert [c["statistic"] for c in got["coefficients"]] == pytest.approx(
            [c["statistic"] for c in want["coefficients"]], rel=1e-12
        )
        long = tmp_path / "long.csv"  # the long format's table: the same
        long.write_text("item,rater,grade\n" + "".join(
            f"{i},{r},{words[v]}\n" for i, row in enumerate(rows)
            for r, v in zip("abc", row, strict=True) if v is not None))  # fmt: skip
        args = ("--long", "--item", "item", "--rater", "rater", "--rating", "grade")
        got = as_json("agreement", long, *args, "--labels", "low,mid,high", "--coefficient", iccs)
        assert [c["statistic"] for c in got["coefficients"]] == pytest.approx(
            [c["statistic"] for c in want["coefficients"]], rel=1e-12
        )
        line = fails("agreement", text, "-r", "a,b,c", "--coefficient", "icc-A1")
        assert "--labels" in line

    def test_a_rater_column_without_ratings_is_named(self, tmp_path):
        path = tmp_path / "e.csv"
        path.write_text("a,b,c\n1,2,\n2,2,\n3,3,\n1,1,\n2,1,\n3,2,\n")
        text = ok("agreement", path, "-r", "a,b,c", "--coefficient", "fleiss").stdout
        assert "1 rater with no rating left out (c)" in text

    def test_by_category_says_which_test(self, tmp_path):
        text = ok("agreement", EXPSY, "-r", "r1,r2,r3", "--by-category").stdout
        assert "against the rest" in text and "p-values: t-test on Gwet's" in text

    def test_report_prints_small_p_values_as_the_terminal_does(self, tmp_path):
        # percent agreement's p-value on the anxiety data is 1.753e-17: the report printed
        # 0.0000
        args = ("-r", "rater1,rater2,rater3", "--coefficient", "percent")
        p = as_json("agreement", ANXIETY, *args)["coefficients"][0]["pvalue"]
        assert 0 < p < 1e-10
        report = tmp_path / "p.html"
        ok("agreement", ANXIETY, *args, "--report", report)
        assert f'<td class="num">{p:.4g}</td>' in report.read_text()

    def test_duplicates(self, tmp_path):
        path, rows = self._crowd(tmp_path, duplicate=True)
        line = fails("agreement", path, *self.LONG)
        n = len(rows)
        assert f"twice (data rows 1 and {n})" in line and "--duplicates first|last" in line
        out = as_json("agreement", path, *self.LONG, "--duplicates", "last", "--coefficient",
                      "fleiss")  # fmt: skip
        assert out["n_duplicates"] == 1
        items, raters, values = zip(*rows, strict=True)
        table = qwkit.ratings_from_long(items, raters, values, duplicates="last")
        assert out["coefficients"][0]["statistic"] == qwkit.agreement_score(
            table, coefficient="fleiss"
        )

    def test_report_of_a_crowd_stays_small(self, tmp_path):
        path, _ = self._crowd(tmp_path)
        target = tmp_path / "crowd.html"
        ok("agreement", path, *self.LONG, "--report", target)
        page = target.read_text()
        # distributions, never a raters × raters heatmap: two figures, ranked tables
        assert page.count("<img") == 2 and "Heatmap" not in page
        assert "The 15 lowest" in page and "The 15 highest" in page
        assert "pairs with a kappa" in page
        assert len(page) < 400_000


def test_pairwise_figure_stays_readable():
    # long rater names and twelve raters: tick labels do not overlap, every pair's
    # value is written, the diagonal and undefined pairs are blank or a dash
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from qwkit.cli import _plots

    rng = np.random.default_rng(20261121)
    r = 12
    values = rng.uniform(-0.2, 1.0, (r, r))
    values = (values + values.T) / 2
    np.fill_diagonal(values, np.nan)
    values[0, 1] = values[1, 0] = np.nan
    names = [f"clinician number {i}" for i in range(r)]
    fig = _plots.pairwise_figure(values, names, title="pairs", label="kappa")
    FigureCanvasAgg(fig).draw()
    renderer = fig.canvas.get_renderer()
    ax = fig.axes[0]
    for ticks in (ax.get_xticklabels(), ax.get_yticklabels()):
        boxes = [t.get_window_extent(renderer) for t in ticks if t.get_text()]
        assert len(boxes) == r
        assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])
    texts = [t.get_text() for t in ax.texts]
    assert len(texts) == r * r - r and texts.count("–") == 2


class TestReliability:
    """``--coefficient icc-...,percent,scott`` and ``--by-category`` (issue 22)."""

    ARGS = ("agreement", ANXIETY, "-r", "rater1,rater2,rater3")

    def test_icc_is_the_api_s(self):
        # R irr's ?icc: icc(anxiety, model = "twoway", type = "agreement") prints
        # ICC(A,1) = 0.198 with the 95% interval -0.039 < ICC < 0.494
        out = as_json(*self.ARGS, "--coefficient", "ICC-A1,icc-ck", "--ci", "0.9")
        d, _ = _matrix(ANXIETY)
        first, second = out["coefficients"]
        assert (first["coefficient"], second["coefficient"]) == ("icc-A1", "icc-Ck")
        res = qwkit.icc(d, form="A,1", confidence_level=0.9)
        assert {k: first[k] for k in plain(res.to_dict())} == plain(res.to_dict())
        assert round(first["statistic"], 3) == 0.198
        low, high = qwkit.icc(d, form="A,1").confidence_interval()
        assert (round(low, 3), round(high, 3)) == (-0.039, 0.494)
        text = ok(*self.ARGS, "--coefficient", "icc-A1,gwet").stdout
        assert "ICC(A,1)" in text and "F test of no item variance" in text

    def test_percent_and_scott(self):
        out = as_json(*self.ARGS[:3], "rater1,rater2", "--coefficient", "percent,scott")
        d, _ = _matrix(ANXIETY)
        for got, name in zip(out["coefficients"], ("percent", "scott"), strict=True):
            res = qwkit.agreement_test(d[:, :2], coefficient=name)
            assert got["statistic"] == res.statistic and got["coefficient"] == name

    def test_all_is_still_the_six(self):
        out = as_json(*self.ARGS)
        assert [c["coefficient"] for c in out["coefficients"]] == COEFFICIENTS

    def test_by_category(self, tmp_path):
        out = as_json(*self.ARGS, "--coefficient", "fleiss", "--by-category")
        d, _ = _matrix(ANXIETY)
        res = qwkit.category_agreement(d)
        got = out["by_category"]
        assert got["statistic"] == plain(res.statistic) and got["labels"] == [1, 2, 3, 4, 5, 6]
        assert got["ci_low"] == plain(res.confidence_interval(0.95).low)
        assert "agreement on each category" in ok(*self.ARGS, "--by-category").stdout
        page = tmp_path / "r.html"
        ok(*self.ARGS, "--coefficient", "icc-A1", "--by-category", "--report", page)
        html = page.read_text(encoding="utf-8")
        assert "Agreement on each category" in html and "ICC(A,1)" in html

    def test_refusals(self, tmp_path):
        line = fails(*self.ARGS, "--coefficient", "icc-21", code=2)
        assert "unknown coefficient 'icc-21'" in line and "icc-A1" in line
        line = fails(*self.ARGS, "--coefficient", "scott")
        assert "two raters" in line
        words = tmp_path / "words.csv"
        words.write_text("a,b\nlow,high\nhigh,high\nlow,low\n", encoding="utf-8")
        line = fails("agreement", words, "-r", "a,b", "--weights", "identity",
                     "--coefficient", "icc-A1")  # fmt: skip
        assert "must hold numbers for the ICC" in line


class TestMissingCodes:
    """``--missing``: codes that mean 'no rating' (99, -1, NA …) are read as empty cells."""

    ROWS = ((3, 3, 2), (-1, 2, 2), (4, 4, 4), (1, 1, 2), (2, 2, 2), (99, 3, 3), (5, 5, 4))

    def _expected(self, coefficient="fleiss"):
        y = np.array(self.ROWS, dtype=float)
        y[np.isin(y, [99, -1])] = np.nan
        return qwkit.agreement_score(y, coefficient=coefficient)

    def test_wide_csv_and_parquet(self, tmp_path):
        csv = tmp_path / "c.csv"
        csv.write_text("judge,h1,h2\n" + "".join(",".join(map(str, r)) + "\n" for r in self.ROWS))
        parquet = tmp_path / "c.parquet"
        cols = list(zip(*self.ROWS, strict=True))
        pq.write_table(pa.table({n: list(c) for n, c in zip(("judge", "h1", "h2"), cols,
                                                          strict=True)}), parquet)  # fmt: skip
        for path in (csv, parquet):
            out = as_json("agreement", path, "-r", "judge,h1,h2", "--coefficient", "fleiss",
                          "--missing", "99, -1")  # fmt: skip
            assert out["coefficients"][0]["statistic"] == self._expected()
        # without it the codes are ratings, with the ScaleWarning's hint of --missing
        result = run("agreement", csv, "-r", "judge,h1,h2", "--coefficient", "fleiss")
        assert result.exit_code == 0 and "--missing 99,-1" in result.stderr

    def test_long_format_reads_codes_in_the_rating_column_only(self, tmp_path):
        path = tmp_path / "l.csv"
        lines = ["item,rater,grade"]
        for i, row in enumerate(self.ROWS):
            lines += [f"{i if i != 1 else 99},{r},{v}" for r, v in zip(("j", "a", "b"), row,
                                                                       strict=True)]  # fmt: skip
        path.write_text("\n".join(lines) + "\n")
        long = ("--long", "--item", "item", "--rater", "rater", "--rating", "grade")
        out = as_json("agreement", path, *long, "--coefficient", "fleiss", "--missing", "99,-1")
        assert out["coefficients"][0]["statistic"] == pytest.approx(self._expected(), rel=1e-12)
        assert out["coefficients"][0]["n_items"] == len(self.ROWS)  # item '99' kept

    def test_text_codes_and_bad_lists(self, tmp_path):
        path = tmp_path / "t.csv"
        path.write_text("a,b\nlow,low\nn/r,high\nhigh,high\nlow,high\n")
        out = as_json("agreement", path, "-r", "a,b", "--labels", "low,high", "--coefficient",
                      "fleiss", "--missing", "n/r")  # fmt: skip
        assert out["coefficients"][0]["statistic"] == qwkit.agreement_score(
            [["low", "low"], [None, "high"], ["high", "high"], ["low", "high"]],
            coefficient="fleiss", labels=["low", "high"],
        )  # fmt: skip
        line = fails("agreement", path, "-r", "a,b", "--missing", "n/r,,x", code=2)
        assert "--missing" in line and "comma-separated codes" in line
