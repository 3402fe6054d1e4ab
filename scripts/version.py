"""One version for the plugin and the sidecar: check that every file agrees, or set them all.

    python scripts/version.py check          # exit 1, naming each file that drifted
    python scripts/version.py set 0.2.0      # what `make version V=0.2.0` runs

The plugin refuses a sidecar of another major version (`plugin/src/setup/compat.ts`), so the
release files, the npm package, the Python package and `ora --version` must all say the same.
`versions.json` maps each plugin version to its `minAppVersion`, as Obsidian's updater reads it.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SEMVER = re.compile(r"^\d+\.\d+\.\d+$")
# `version = "…"` in [project], and `__version__ = "…"`: the first match in each file.
_PYPROJECT = re.compile(r'^(version\s*=\s*")([^"]+)(")', re.MULTILINE)
_DUNDER = re.compile(r'^(__version__\s*=\s*")([^"]+)(")', re.MULTILINE)
_JSON = re.compile(r'("version"\s*:\s*")([^"]+)(")')


def _read_json(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _regex_version(pattern: re.Pattern[str]) -> Callable[[Path], str]:
    def read(path: Path) -> str:
        found = pattern.search(path.read_text(encoding="utf-8"))
        return found.group(2) if found else "(none)"
    return read


def _lock_version(path: Path) -> str:
    lock = _read_json(path)
    root_pkg = lock.get("packages", {}).get("", {})
    top, inner = lock.get("version"), root_pkg.get("version")
    return str(top) if top == inner else f"{top} / {inner}"


# file → how to read its version; `versions.json` is checked separately (it maps many versions).
READERS: dict[str, Callable[[Path], str]] = {
    "manifest.json": lambda p: str(_read_json(p)["version"]),
    "package.json": lambda p: str(_read_json(p)["version"]),
    "package-lock.json": _lock_version,
    "pyproject.toml": _regex_version(_PYPROJECT),
    "sidecar/__init__.py": _regex_version(_DUNDER),
}


def versions(root: Path) -> dict[str, str]:
    """Each file's version."""
    return {name: read(root / name) for name, read in READERS.items()}


def drift(root: Path) -> list[str]:
    """One line per disagreement with manifest.json; empty when all agree."""
    found = versions(root)
    expected = found["manifest.json"]
    problems = [f"{name} says {v}, manifest.json says {expected}"
                for name, v in found.items() if v != expected]
    min_app = _read_json(root / "manifest.json")["minAppVersion"]
    listed = _read_json(root / "versions.json").get(expected)
    if listed != min_app:
        problems.append(f"versions.json maps {expected} to {listed}, manifest.json's "
                        f"minAppVersion is {min_app}")
    if not SEMVER.match(expected):
        problems.append(f"manifest.json's version {expected} is not MAJOR.MINOR.PATCH")
    return problems


def _sub(pattern: re.Pattern[str], path: Path, version: str, count: int = 1) -> None:
    """Replace the version in place, so every other byte of the file stays as it was."""
    text = path.read_text(encoding="utf-8")
    path.write_text(pattern.sub(rf"\g<1>{version}\g<3>", text, count=count), encoding="utf-8")


def set_version(root: Path, version: str) -> None:
    """Write `version` into every file; add it to versions.json with the current minAppVersion."""
    if not SEMVER.match(version):
        raise ValueError(f"{version!r} is not MAJOR.MINOR.PATCH")
    # The first "version" key of each JSON file is the package's own (the lock's first two are
    # its top level and its root package), so no reformatting of the rest.
    for name, count in (("manifest.json", 1), ("package.json", 1), ("package-lock.json", 2)):
        _sub(_JSON, root / name, version, count)
    _sub(_PYPROJECT, root / "pyproject.toml", version)
    _sub(_DUNDER, root / "sidecar/__init__.py", version)
    table = _read_json(root / "versions.json")
    table[version] = _read_json(root / "manifest.json")["minAppVersion"]
    (root / "versions.json").write_text(json.dumps(table, indent=2) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    actions = parser.add_subparsers(dest="action", required=True)
    actions.add_parser("check", help="exit 1 when the version files disagree")
    setter = actions.add_parser("set", help="set every version file to VERSION")
    setter.add_argument("version", metavar="VERSION")
    args = parser.parse_args(argv)
    if args.action == "set":
        try:
            set_version(args.root, args.version)
        except ValueError as exc:
            print(f"version: {exc}", file=sys.stderr)
            return 2
    problems = drift(args.root)
    for line in problems:
        print(f"version drift: {line}", file=sys.stderr)
    if not problems:
        print(f"version {versions(args.root)['manifest.json']} everywhere")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
