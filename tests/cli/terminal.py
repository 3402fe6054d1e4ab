"""What the CLI tests check a terminal never receives from outside text."""

# What a terminal acts on: C0 but the line break and the tab, DEL, and C1 (as UTF-8: U+0080-9F).
ACTED_ON = [*(chr(c) for c in range(0x20) if chr(c) not in "\n\t"), *map(chr, range(0x7f, 0xa0))]
