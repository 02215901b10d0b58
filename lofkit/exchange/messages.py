"""Messages of the importers and exporters that name their settings, so that each caller can name them its way.

A message is written once, naming each setting as a str.format field: `{marker_size}`, `{overwrite}`. As a str it
names the keyword argument (`marker_size`); `render(names)` names each setting as `names` says, so the CLI can say
`--marker-size`. Every other field is a value, filled in as str.format fills it (a value is never read as a template).
"""

from __future__ import annotations

from collections.abc import Mapping

from lofkit.errors import LofkitError


class _Fields(dict):
    """A message's values; any other field is a setting, named as `names` says (else by its own name)."""

    def __init__(self, values: Mapping[str, object], names: Mapping[str, str]):
        super().__init__(values)
        self.names = names

    def __missing__(self, setting: str) -> str:
        return self.names.get(setting, setting)


class Message(str):
    """Text naming settings as `{setting}` fields (see the module docstring); as a str it names keyword arguments."""

    template: str
    values: dict

    def __new__(cls, template: str, **values) -> Message:
        text = super().__new__(cls, template.format_map(_Fields(values, {})))
        text.template, text.values = template, values
        return text

    def render(self, names: Mapping[str, str]) -> str:
        """The text with each setting named as in `names` (a setting not in it keeps its own name)."""
        return self.template.format_map(_Fields(self.values, names))


def render(text: str, names: Mapping[str, str]) -> str:
    """A `Message` with its settings named as in `names`; any other text as it is."""
    return text.render(names) if isinstance(text, Message) else text


class SettingError(LofkitError):
    """Bad input to an importer or exporter, worded as a `Message` (`message`), whose settings a caller may name."""

    def __init__(self, template: str, **values):
        self.message = Message(template, **values)
        super().__init__(str(self.message))
