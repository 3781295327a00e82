"""`tableref bench detector` names the CPU and whether it has 8-bit dot products (``cpu_description``)."""
from __future__ import annotations

from pathlib import Path

from vision.benchmarks.detector import cpu_description

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
