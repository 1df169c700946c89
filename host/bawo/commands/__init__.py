"""The `bawo` command's subcommands, one module a group, each command's parser beside the
function that runs it. Each module has add_parser(subs); cli.py calls them in GROUPS' order,
which is the order `bawo --help` lists the commands in."""

from . import club, fetch, follow, install, log, playing, proofs

GROUPS = (fetch, club, log, follow, install, playing, proofs)
