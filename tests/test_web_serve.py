"""`tableref serve` refuses bad options with a clear message instead of a traceback."""
from __future__ import annotations

import pytest

from web.cli import main


def test_a_port_out_of_range_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--port", "70000", "--no-camera"]) == 2
    assert "not a port number" in capsys.readouterr().err


def test_a_database_that_cannot_be_opened_is_reported(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--db", "nosuchdb://x", "--no-camera"]) == 1
    assert "cannot open the database" in capsys.readouterr().err


def test_camera_options_exclude_each_other(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["serve", "--demo", "--no-camera"])
    assert "not allowed with" in capsys.readouterr().err
