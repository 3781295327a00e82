"""`tableref serve` refuses bad options with a clear message instead of a traceback."""
from __future__ import annotations

import socket
from pathlib import Path

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


def test_a_port_in_use_is_reported_with_the_address(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """werkzeug tells why it cannot bind and exits; serve says where, and ends with status 1."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port), "--no-camera", "--db", f"sqlite:///{tmp_path / 'g.db'}"]) == 1
    assert f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err
