"""Every subcommand's --help ends with examples (the README promises it), found from the
parser itself so that a new subcommand cannot be left out."""

import pytest

from bawo import cli


def subcommands():
    p = cli.build_parser()
    action = next(a for a in p._actions if a.__class__.__name__ == "_SubParsersAction")
    return sorted(action.choices)


@pytest.mark.parametrize("cmd", subcommands())
def test_every_subcommand_has_help_with_examples(cmd, capsys):
    with pytest.raises(SystemExit) as e:
        cli.main([cmd, "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    examples = out[out.index("examples:") :]
    assert ("bawo %s" % cmd) in examples, out


def test_the_list_is_every_subcommand():
    assert {"sim", "solve", "analyse", "demo", "flash"} <= set(subcommands())
