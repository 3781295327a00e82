"""`tableref bench detector` names the CPU and whether it has 8-bit dot products (``cpu_description``), and where a
frame's time goes (``network_times``)."""
from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from vision.benchmarks.detector import cpu_description, network_times

X86 = "processor\t: 0\nmodel name\t: AMD EPYC 9654\nflags\t\t: fpu sse2 avx2 avx512f avx512_vnni\n"
X86_AVX2 = "processor\t: 0\nmodel name\t: AMD EPYC 7742\nflags\t\t: fpu sse2 avx2 fma\n"
ARM = "processor\t: 0\nFeatures\t: fp asimd asimddp sha2\nModel\t\t: Raspberry Pi 5 Model B Rev 1.0\n"


def described(tmp_path: Path, text: str) -> str:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(text)
    return cpu_description(cpuinfo)


def test_a_cpu_with_vnni_is_named_with_its_dot_product_flag(tmp_path: Path) -> None:
    line = described(tmp_path, X86)
    assert line.startswith("CPU: AMD EPYC 9654,") and "8-bit dot products: yes (avx512_vnni)" in line


def test_an_avx2_cpu_is_said_to_lack_them(tmp_path: Path) -> None:
    line = described(tmp_path, X86_AVX2)
    assert "AMD EPYC 7742" in line and "8-bit dot products: no" in line


def test_an_arm_cpu_with_dot_products(tmp_path: Path) -> None:
    line = described(tmp_path, ARM)
    assert "Raspberry Pi 5" in line and "yes (asimddp)" in line


def test_without_cpuinfo_it_says_it_does_not_know(tmp_path: Path) -> None:
    assert "8-bit dot products: not known" in cpu_description(tmp_path / "missing")


class FakeSession:
    """An ONNX Runtime session's stand-in: ``run`` takes a little time."""

    def run(self, outputs, feed):
        time.sleep(0.002)
        return [next(iter(feed.values()))]


def test_a_frames_time_is_split_between_the_networks_and_the_rest() -> None:
    """`bench detector` says where a frame's time goes: each network's runs and inputs, and the rest."""
    detector = SimpleNamespace(session=FakeSession(), classifier=SimpleNamespace(session=FakeSession()),
                               colour_reader=None)
    with network_times(detector) as spent:
        with spent.counting(True):
            detector.session.run(None, {"images": np.zeros((1, 3, 8, 8))})
            detector.classifier.session.run(None, {"crops": np.zeros((4, 3, 8, 8))})
            detector.classifier.session.run(None, {"crops": np.zeros((2, 3, 8, 8))})
        with spent.counting(False):  # the baseline's runs are not counted
            detector.session.run(None, {"images": np.zeros((1, 3, 8, 8))})
    assert spent.runs == {"detector": 1, "reader": 2} and spent.inputs == {"detector": 1, "reader": 6}
    assert spent.ms["detector"] >= 2 and spent.ms["reader"] >= 4
    line = spent.summary(frames=2, total_ms=sum(spent.ms.values()) + 10)
    assert "reader" in line and "(1 runs, 3 inputs)" in line and "the rest 5.0 ms" in line
    assert "run" not in vars(detector.session)  # the sessions' own run is back
