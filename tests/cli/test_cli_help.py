"""Every command is registered, importable and explains itself: `etl --help` lists it and
`etl COMMAND --help` prints a description and documents every option."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from etl.cli import COMMANDS, cli


def test_every_planned_command_exists():
    runner = CliRunner()
    listing = runner.invoke(cli, ["--help"])
    assert listing.exit_code == 0
    for name in COMMANDS:
        assert name in listing.output, f"etl {name} is not available"


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_command_has_help_text(name):
    command = cli.get_command(None, name)
    assert command is not None, name
    assert command.help and len(command.help.strip()) > 20, f"etl {name} has no help text"
    for param in command.params:
        if param.param_type_name == "option" and param.name != "help":
            assert param.help, f"etl {name} option {param.opts} has no help"
    result = CliRunner().invoke(cli, [name, "--help"])
    assert result.exit_code == 0
    assert "Usage:" in result.output
