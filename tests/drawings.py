"""Excalidraw drawing notes as the plugin writes them, in its current and older layouts."""

from __future__ import annotations

from collections.abc import Sequence

BANNER = ("==⚠  Switch to EXCALIDRAW VIEW in the MORE OPTIONS menu of this document. ⚠== You can "
          "decompress Drawing data with the command palette: 'Decompress current Excalidraw "
          "file'. For more info check in plugin settings under 'Saving'")
OLD_BANNER = "==⚠  Switch to EXCALIDRAW VIEW in the MORE OPTIONS menu of this document. ⚠=="
COMPRESSED = "N4KAkARALgngDgUwgLgAQQQDwMYEMA2AlgCYBOuA7hADTgQBuCpAzoQPYB2KqATLZMzYBXUtiRoIACyhQ4z"
LAYOUTS = ("current", "commented", "old")


def _elements(texts: Sequence[tuple[str, str]]) -> str:
    return "".join(f"{text} ^{key}\n\n" for text, key in texts)


def excalidraw(texts: Sequence[tuple[str, str]], *, layout: str = "current",
               tags: str = "[excalidraw]", back: str = "", link: str = "Renovation") -> str:
    """A drawing note holding text elements (text, 8-character id). `current`: the plugin's
    layout today; `commented`: its data section hidden under `%%` (a plugin setting); `old`:
    1.x, `# Text Elements` at the top level and a plain `json` drawing. `back`: notes written
    above the data."""
    if layout == "old":
        return (f"---\nexcalidraw-plugin: parsed\ntags: {tags}\n---\n{OLD_BANNER}\n\n{back}\n"
                f"# Text Elements\n{_elements(texts)}\n# Embedded files\n"
                "7dd4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6: [[pump.png]]\n\n"
                '%%\n# Drawing\n```json\n{"type":"excalidraw","version":2,"elements":[]}\n```\n%%')
    commented = layout == "commented"
    return (f"---\nexcalidraw-plugin: parsed\ntags: {tags}\n---\n{BANNER}\n\n{back}\n"
            + ("%%\n" if commented else "")
            + f"# Excalidraw Data\n\n## Text Elements\n{_elements(texts)}"
            f"## Element Links\nx1y2z3w4: [[{link}]]\n\n"
            "## Embedded Files\n0123abcd: [[Pasted Image 20240305.png]]\n\n"
            + ("" if commented else "%%\n")
            + f"## Drawing\n```compressed-json\n{COMPRESSED}\n```\n%%\n")
