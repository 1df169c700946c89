"""The README's examples run as written, and .ci/run runs the README's test command exactly."""

import doctest
import re

from conftest import ROOT


def test_readme_python_examples():
    failed, tried = doctest.testfile(
        str(ROOT / "README.md"), module_relative=False, optionflags=doctest.ELLIPSIS
    )
    assert tried >= 8 and failed == 0


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    commands = re.findall(
        r"```sh\n((?:bash tools/install-system-deps.sh && )?python3 -m venv .*)\n```", readme
    )
    assert len(commands) == 2, "the README gives exactly two commands"
    main, tests = commands
    assert main.endswith("bawo demo") and tests.endswith("python3 -m pytest -n 2")
    # The browser tests need Debian's chromium and chromium-driver: the test command installs them.
    assert tests.startswith("bash tools/install-system-deps.sh && ")
    assert (ROOT / "tools" / "install-system-deps.sh").is_file()
    ci = (ROOT / ".ci" / "run").read_text()
    assert tests in ci.splitlines()


def test_readme_says_which_systems_are_supported_and_how_that_is_tested():
    # A new user asked which systems the host tools run on: the README says it, with how each
    # is tested, and the package's classifiers say the same.
    from importlib.metadata import metadata

    readme = (ROOT / "README.md").read_text()
    section = readme.split("\n## Supported systems\n", 1)[1].split("\n## ", 1)[0]
    assert "**Linux**" in section and "`.ci/run`" in section  # tested: the whole suite
    assert "**macOS** is expected to work but is not tested" in section
    assert "**Windows** is not supported" in section
    systems = [
        c
        for c in metadata("bawo-board").get_all("Classifier") or ()
        if c.startswith("Operating System ::")
    ]
    assert sorted(systems) == ["Operating System :: MacOS", "Operating System :: POSIX :: Linux"]


def test_readme_command_table_has_every_subcommand():
    # A newcomer finds every command in the README's table, and nothing the CLI lacks.
    from bawo import cli

    parser = cli.build_parser()
    action = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    readme = (ROOT / "README.md").read_text()
    table = readme.split("\n## Commands\n", 1)[1].split("\n## ", 1)[0]
    listed = set(re.findall(r"`bawo ([a-z0-9-]+)", table))
    assert listed == set(action.choices)


def test_readme_is_short_and_its_figures_live_in_benchmarks():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) < 200
    assert "[docs/benchmarks.md](docs/benchmarks.md)" in readme
    # The board's memory budget the README used to tabulate is in docs/benchmarks.md.
    bench = (ROOT / "docs" / "benchmarks.md").read_text()
    for figure in (
        "36,192 B",
        "13,936 B",
        "33,280 B",
        "25,904 B",
        "312 records",
        "12,912 B",
        "50,144 B",
        "43,520 B",
        "27,200 B",
        "22,608 B",
        "254 records",
        "67,680 B",
    ):
        assert figure in bench, figure
