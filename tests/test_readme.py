"""The examples of README.md and of the pages in docs/ run as written.

Every ```python block runs (with the repository as the working folder). Every ```console block runs its `$ lofkit`
commands in order, in a scratch folder where `examples/` is the repository's and the files a reader is assumed to
have are made first (see `reader_folder`), and each must exit 0, or with the status a following `$ echo $?` shows.
What a page prints under a command must be what the command prints (stdout and stderr, as a terminal shows
them): line by line, where a line `...` stands for any number of lines, and as data where the page shows JSON.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
from dataclasses import dataclass

import pytest
from click.testing import CliRunner

from lofkit.cli import cli
from tests.helpers import REPO, scene_data, trooper, write_scene

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
"""The user's documentation: the README and the pages it links to."""
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
HOME = "~/"
"""Commands may name files in the reader's home folder; the test gives them one inside the scratch folder."""

WALKTHROUGHS = {
    "table.jpg": ("examples/imports/photo_walkthrough.py", "out/imports/photo.jpg"),
    "scan.glb": ("examples/imports/scan_walkthrough.py", "out/imports/scan.glb"),
    "map.json": ("examples/imports/tts_walkthrough.py", "out/imports/tts/map.json"),
    "home/Documents/My Games/Tabletop Simulator/Mods": ("examples/imports/tts_walkthrough.py", "out/imports/tts/Mods"),
}
"""The reader's own files in the import examples (a photo, a scan, a TTS save and its model cache): the ones the
importers' walkthroughs make."""


@dataclass
class Command:
    argv: list[str]
    shown: list[str]  # the lines the page prints under it
    status: int = 0


def _blocks(language: str) -> list[str]:
    return [body for page in PAGES for lang, body in FENCE.findall(page.read_text(encoding="utf-8"))
            if lang == language]


def _commands(block: str) -> list[Command]:
    commands: list[Command] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            argv = shlex.split(line[2:], comments=True)
            if argv == ["echo", "$?"]:
                commands[-1].shown.append("$?")
            else:
                commands.append(Command(argv, []))
        elif commands:
            commands[-1].shown.append(line.rstrip())
    for command in commands:  # `$ echo $?` and the status it prints
        if "$?" in command.shown:
            at = command.shown.index("$?")
            command.status = int(command.shown[at + 1])
            del command.shown[at:]
    return [c for c in commands if c.argv[0] == "lofkit"]


CONSOLE = [block for block in _blocks("console") if _commands(block)]


def _matches(shown: list[str], printed: list[str]) -> bool:
    """Whether the printed lines are the shown ones, a shown line `...` standing for any number of lines."""
    if not shown:
        return not printed
    if shown[0].strip() == "...":
        return any(_matches(shown[1:], printed[k:]) for k in range(len(printed) + 1))
    return bool(printed) and printed[0] == shown[0] and _matches(shown[1:], printed[1:])


def _same_output(shown: list[str], printed: str) -> bool:
    lines = [line.rstrip() for line in printed.strip("\n").splitlines()]  # a progress bar may leave a blank line
    try:
        expected = json.loads("\n".join(shown))
    except ValueError:
        return _matches(shown, lines)
    try:
        return json.loads(printed) == expected
    except ValueError:
        return False


@pytest.fixture(scope="module")
def reader_folder(tmp_path_factory, example_run):
    """A scratch folder holding `examples/` (the repository's) and the reader's files the examples name."""
    folder = tmp_path_factory.mktemp("reader")
    (folder / "examples").symlink_to(REPO / "examples", target_is_directory=True)
    for name, (script, made) in WALKTHROUGHS.items():
        done, ran_in = example_run(script)
        assert done.returncode == 0, done.stderr
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        copy = shutil.copytree if (ran_in / made).is_dir() else shutil.copyfile
        copy(ran_in / made, folder / name)
    # `lofkit validate broken.yaml`: a scene whose third trooper's base is partly off the table
    broken = scene_data([trooper("a", 100, 100), trooper("b", 200, 100), trooper("c", 5, 300)])
    write_scene(folder, broken, "broken.yaml")
    return folder


def test_the_readme_has_examples_of_both_kinds():
    assert _blocks("python") and len(CONSOLE) >= 4


@pytest.mark.slow
@pytest.mark.parametrize("code", _blocks("python"), ids=lambda code: code.splitlines()[0][:40])
def test_python_examples_run(code, monkeypatch):
    monkeypatch.chdir(REPO)
    exec(compile(code, "documentation example", "exec"), {"__name__": "__readme__"})


@pytest.mark.slow
@pytest.mark.parametrize("block", CONSOLE, ids=lambda block: " ".join(_commands(block)[0].argv[:2]))
def test_console_examples_run_and_print_what_the_readme_shows(block, reader_folder, monkeypatch):
    monkeypatch.chdir(reader_folder)
    runner = CliRunner()
    for command in _commands(block):
        argv = [str(reader_folder / "home" / a[len(HOME):]) if a.startswith(HOME) else a for a in command.argv[1:]]
        result = runner.invoke(cli, argv)
        where = f"$ {shlex.join(command.argv)}\n{result.output}"
        assert result.exit_code == command.status, where
        if command.shown:
            assert _same_output(command.shown, result.output), where + "\nthe page shows:\n" + "\n".join(command.shown)
