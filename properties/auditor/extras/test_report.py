"""dpverify.extras.report.write_report: self-contained HTML or Markdown, replaying the audit's seed.

Deterministic checks (fixed seeds): the report shows the verdict, event,
both probabilities, the bound and its confidence; the replay of the seed
reproduces the audit's event and counts (a check of reproducibility that fails
if sampling or selection depended on anything but the seed).
"""

from __future__ import annotations

import base64
import html
import re
import sys

import numpy as np
import pytest

from dpverify import audit
from dpverify.audits.sequential import sequential_audit
from dpverify.extras.report import replay_samples, write_report
from dpverify.mechanisms.textbook import GeometricMechanism, LaplaceMechanism

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def broken_laplace_audit():
    mechanism = LaplaceMechanism(1.0)  # true eps 1 against a claim of 0.5
    result = audit(mechanism, 0.0, 1.0, epsilon=0.5, n_samples=20_000, seed=3, event_families=["threshold"])
    return mechanism, result


def test_html_report_is_self_contained_and_names_everything(tmp_path, broken_laplace_audit):
    pytest.importorskip("matplotlib", reason="HTML reports embed a matplotlib figure (installed by the test extra)")
    mechanism, result = broken_laplace_audit
    written = write_report(result, tmp_path / "audit.html", mechanism=mechanism, x=0.0, x_prime=1.0)
    assert written == tmp_path / "audit.html"
    text = written.read_text()
    assert text.startswith("<!DOCTYPE html>")
    assert "VIOLATION" in text
    assert html.escape(result.event.description) in text
    assert f"{result.event.count_x} of {result.event.n_certification}" in text
    assert f"{result.epsilon_lower_bound:.6g} (confidence 0.95)" in text
    assert "replay: reproduced the audit&#x27;s event and counts" in text
    assert "LaplaceMechanism(epsilon=1.0" in text
    # one embedded PNG and no external resources
    images = re.findall(r"src='data:image/png;base64,([A-Za-z0-9+/=]+)'", text)
    assert len(images) == 1 and base64.b64decode(images[0]).startswith(PNG_MAGIC)
    assert "http://" not in text and "https://" not in text


def test_markdown_report_with_png(tmp_path, broken_laplace_audit):
    pytest.importorskip("matplotlib", reason="HTML reports embed a matplotlib figure (installed by the test extra)")
    mechanism, result = broken_laplace_audit
    written = write_report(result, tmp_path / "audit.md", mechanism=mechanism, x=0.0, x_prime=1.0)
    assert written.suffix == ".md"
    assert (tmp_path / "audit.png").read_bytes().startswith(PNG_MAGIC)
    text = written.read_text()
    assert "![output distributions and the certified event](audit.png)" in text
    assert "| event S |" in text and "reproduced the audit's event and counts" in text


def test_without_matplotlib_html_falls_back_to_markdown(tmp_path, monkeypatch, broken_laplace_audit):
    mechanism, result = broken_laplace_audit
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now raises ImportError
    with pytest.warns(UserWarning, match="matplotlib is not installed"):
        written = write_report(result, tmp_path / "audit.html", mechanism=mechanism, x=0.0, x_prime=1.0)
    assert written == tmp_path / "audit.md"
    assert "(no figure: matplotlib is not installed)" in written.read_text()
    assert not (tmp_path / "audit.html").exists()


def test_sequential_report_lists_the_looks_and_reproduces(tmp_path):
    mechanism = GeometricMechanism(1.0)
    result = sequential_audit(mechanism, 0, 1, epsilon=0.5, n_samples=100_000, seed=4)
    assert result.violation and result.stopped_early
    written = write_report(result, tmp_path / "seq.md", mechanism=mechanism, x=0, x_prime=1)
    text = written.read_text()
    assert "## Looks of the sequential audit" in text
    assert text.count("| yes |") == 1
    assert "reproduced the audit's event and counts" in text
    assert f"{result.n_samples} of 100000 samples per input" in text


def test_replay_returns_the_audit_selection_samples_and_detects_a_changed_seed(tmp_path):
    mechanism = GeometricMechanism(0.5)
    result = audit(mechanism, 0, 1, epsilon=0.5, n_samples=5_000, seed=8)
    raw_x, raw_x_prime, exact = replay_samples(result, mechanism, 0, 1)
    assert exact and len(raw_x) == len(raw_x_prime) == result.n_selection
    tampered = type(result).from_dict({**result.to_dict(), "seed": 9})
    written = write_report(tampered, tmp_path / "t.md", mechanism=mechanism, x=0, x_prime=1)
    assert "did NOT reproduce" in written.read_text()


def test_large_audits_replay_a_smaller_sample_for_the_figure(tmp_path):
    mechanism = GeometricMechanism(0.5)
    result = audit(mechanism, 0, 1, epsilon=0.5, n_samples=20_000, seed=8)
    written = write_report(result, tmp_path / "big.md", mechanism=mechanism, x=0, x_prime=1, max_replay_samples=2_000)
    assert "figure from 2000 re-drawn samples per input" in written.read_text()


class ManyLabels:
    """300 equally likely discrete outputs, shifted by the input: a selection that grows."""

    def __call__(self, x, rng):
        return int((x + rng.integers(300)) % 300)

    def sample(self, x, size, rng):
        return (x + rng.integers(300, size=size)) % 300


def test_replay_samples_are_the_audit_selection_also_when_it_grew(monkeypatch):
    """Detects: a figure that says it shows the audit's selection samples but re-draws other ones.

    The selection of this audit grows (many repeating discrete outputs), so its samples come from two
    streams; the samples handed to the selection during the audit must come back from the replay.
    """
    import dpverify.audits.choosing as choosing

    seen = {}
    real_select = choosing.select

    def spy(sel_x, sel_xp, **kwargs):
        seen["x"], seen["x_prime"] = np.asarray(sel_x).copy(), np.asarray(sel_xp).copy()
        return real_select(sel_x, sel_xp, **kwargs)

    monkeypatch.setattr(choosing, "select", spy)
    result = audit(ManyLabels(), 0, 1, epsilon=1.0, n_samples=200_000, seed=3)
    monkeypatch.setattr(choosing, "select", real_select)
    assert result.n_selection > 20_000  # the selection grew beyond its first draw
    raw_x, raw_x_prime, exact = replay_samples(result, ManyLabels(), 0, 1, max_samples=10**6)
    assert exact
    assert np.array_equal(np.asarray(raw_x), seen["x"]) and np.array_equal(np.asarray(raw_x_prime), seen["x_prime"])


def leaky(x, rng):
    """A module-level mechanism: the report names it module:function."""
    return float(x) + rng.laplace(scale=0.25)


def test_the_report_names_a_function_as_module_and_name(tmp_path):
    """Detects ``<function leaky at 0x7f...>`` in the report (an address, not a name to find the code by)."""
    result = audit(leaky, 0.0, 1.0, epsilon=1.0, n_samples=20_000, seed=3, event_families=["threshold"])
    text = write_report(result, tmp_path / "audit.md", mechanism=leaky, x=0.0, x_prime=1.0).read_text()
    assert f"{__name__}:leaky" in text and "0x" not in text.split("| mechanism |")[1].split("\n")[0]


def test_discrete_histograms_are_in_value_order():
    """Detects bars ranked by frequency (2, 0, 1, ...) instead of laid out by value (0, 1, 2, ...)."""
    from dpverify.extras.report import bars_in_value_order

    labels = [2, 0, 1, 10, -3]
    a = [0.5, 0.2, 0.2, 0.05, 0.05]
    shown, rest = bars_in_value_order(a, a, labels, limit=4)
    assert [labels[c] for c in shown] == [0, 1, 2, 10] and [labels[c] for c in rest] == [-3]
    words = ["b", "a", ("z", 1), ("a", 2)]
    shown, _ = bars_in_value_order([1, 1, 1, 1], [0, 0, 0, 0], words, limit=4)
    assert [words[c] for c in shown] == [("a", 2), ("z", 1), "a", "b"]  # tuples entry by entry, then by repr


def test_the_figure_marks_the_event_and_its_caption_counts_the_samples(tmp_path, broken_laplace_audit):
    """Detects a histogram that does not show which outputs are in S, and a caption silent on the samples
    behind the bound: S re-derived from the audit's own selection samples is exactly its threshold
    event (outputs at or past the threshold), and the caption gives the replayed and the certification
    counts. A discrete audit marks S's bars (checked through the membership of its codes)."""
    pytest.importorskip("matplotlib", reason="HTML reports embed a matplotlib figure (installed by the test extra)")
    from dpverify.extras.report import event_membership, figure_caption

    mechanism, result = broken_laplace_audit
    raw_x, raw_xp, exact = replay_samples(result, mechanism, 0.0, 1.0)
    membership = event_membership(result, raw_x, raw_xp, exact, 0.0, 1.0)
    assert membership is not None
    threshold = float(re.search(r"([-+0-9.e]+)$", result.event.description).group(1))
    values = np.asarray(raw_x, dtype=float).ravel()
    expected = values >= threshold if ">=" in result.event.description else values < threshold
    np.testing.assert_array_equal(membership[0], expected)
    caption = figure_caption(result, len(raw_x), True)
    ev = result.event
    assert f"{len(raw_x)} replayed samples per input" in caption and "S shaded" in caption
    assert f"{ev.count_x} of {ev.n_certification} under M(x)" in caption
    text = write_report(result, tmp_path / "audit.html", mechanism=mechanism, x=0.0, x_prime=1.0).read_text()
    assert "<figcaption>" in text and html.escape(f"{ev.count_x_prime} of {ev.n_certification} under M(x')") in text
    geometric = audit(GeometricMechanism(1.0), 0, 1, epsilon=0.5, n_samples=20_000, seed=2)
    gx, gxp, exact = replay_samples(geometric, GeometricMechanism(1.0), 0, 1)
    inside = event_membership(geometric, gx, gxp, exact, 0, 1)
    assert inside is not None and 0 < inside[0].mean() < 1
    text = write_report(geometric, tmp_path / "geo.md", mechanism=GeometricMechanism(1.0), x=0, x_prime=1).read_text()
    assert f"{geometric.event.count_x} of {geometric.event.n_certification} under M(x)" in text


@pytest.mark.parametrize("kind", ["zcdp", "gdp"])
def test_a_report_of_another_claim_kind_names_its_parameter(tmp_path, kind):
    """Detects a report that formats a zCDP or Gaussian DP audit as (eps, delta) (it had no epsilon to format:
    the report raised) or names epsilon as the certified parameter."""
    from dpverify import PrivacyClaim
    from dpverify.mechanisms.concentrated import ZCDPGaussian

    mechanism = ZCDPGaussian(0.5)
    claim = mechanism.claim if kind == "zcdp" else PrivacyClaim.gdp(0.8)
    result = audit(mechanism, 0.0, 1.0, claim=claim, n_samples=50_000, seed=1)
    path = tmp_path / f"{kind}.html"
    write_report(result, path, mechanism=mechanism, x=0.0, x_prime=1.0)
    text = html.unescape(path.read_text())
    parameter = "rho" if kind == "zcdp" else "mu"
    assert f"certified lower bound on {parameter}" in text and str(claim) in text
    assert ("cells" in text) == (kind == "zcdp")
