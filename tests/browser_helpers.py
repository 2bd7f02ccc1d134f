"""Headless Chromium (Debian's ``chromium`` package) for the tests that look at pages.

``image_check`` loads a copy of a page with a small script appended, with
``--dump-dom``; on the load event the script writes, for every ``<img>``, whether it
decoded and its natural size, and the page's visible text, into the DOM, which Chromium
then prints. Never skipped: without Chromium a test fails and says how to install it.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

PROBE = """
<script>
window.addEventListener("load", function () {
  var rows = Array.prototype.map.call(document.images, function (img) {
    return {id: img.id, complete: img.complete, width: img.naturalWidth,
            height: img.naturalHeight};
  });
  var out = document.createElement("pre");
  out.id = "qwkit-image-check";
  out.textContent = JSON.stringify(rows);
  document.body.appendChild(out);
});
</script>
"""


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    assert path, "headless Chromium is needed: apt-get install -y chromium"
    return path


def browser(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    profile = tmp_path / f"chromium-profile-{len(list(tmp_path.glob('chromium-profile-*')))}"
    command = [
        chromium(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--hide-scrollbars",
        f"--user-data-dir={profile}",
        *args,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def image_check(tmp_path: Path, report: Path) -> list[dict]:
    probe = tmp_path / f"probe-{report.name}"
    probe.write_text(report.read_text().replace("</body>", PROBE + "</body>"))
    result = browser(tmp_path, "--virtual-time-budget=10000", "--dump-dom", probe.as_uri())
    match = re.search(r'<pre id="qwkit-image-check">(.*?)</pre>', result.stdout, re.S)
    assert match, f"no probe output; chromium said: {result.stderr[-2000:]}"
    return json.loads(match.group(1))


PAGE_PROBE = """
<script>
window.addEventListener("load", function () {
  var images = Array.prototype.map.call(document.images, function (img) {
    return {src: img.getAttribute("src"), complete: img.complete,
            width: img.naturalWidth, height: img.naturalHeight};
  });
  var h1 = document.querySelector("h1");
  var out = document.createElement("pre");
  out.id = "qwkit-page-check";
  out.textContent = JSON.stringify({
    images: images,
    h1: h1 ? h1.innerText : null,
    text: document.body.innerText,
    stylesheets: document.styleSheets.length
  });
  document.body.appendChild(out);
});
</script>
"""


def page_check(tmp_path: Path, page: Path) -> dict:
    """What a reader sees of ``page``: its images (decoded or not), its first heading, its
    visible text and how many stylesheets loaded. The probe copy sits beside the page, so
    that the page's relative links (styles, scripts, figures) resolve as they do for it."""
    probe = page.with_name(f"qwkit-probe-{page.name}")
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", PAGE_PROBE + "</body>"))
    result = browser(tmp_path, "--virtual-time-budget=10000", "--dump-dom", probe.as_uri())
    probe.unlink()
    match = re.search(r'<pre id="qwkit-page-check"[^>]*>(.*?)</pre>', result.stdout, re.S)
    assert match, f"no probe output; chromium said: {result.stderr[-2000:]}"
    return json.loads(html.unescape(match.group(1)))
