"""What Ora says about notes and the fixes it offers: diagnostics (`ora lint`: `diagnostics.py`,
its rules in `rules.py`) and `ora adopt` (the schema proposed for notes lint calls untyped,
`adopt.py`, applied with an undo journal, `adopt_journal.py`).

It sits after `sidecar.chunking`, which sits after `sidecar.vault`: lint measures a note as the
index chunks it (`note-too-long`), so it reads both; neither reads it.
"""
