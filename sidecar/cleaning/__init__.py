"""The Engram Cleaning Framework: find contradicting notes, queue them, apply the user's triage.

`scan` pairs changed notes with their nearest neighbours and asks a judge about their aligned
claims; `Queue` keeps the findings in `DATA/contradictions.sqlite`; `resolve` applies a
resolution through the vault's one writer; the news sweep proposes supersessions.
"""

from sidecar.cleaning.judges import build_judge, judge_status
from sidecar.cleaning.resolve import ACTIONS, Resolution, approve_batch, resolve
from sidecar.cleaning.rules import detect
from sidecar.cleaning.scan import ScanReport, scan
from sidecar.cleaning.store import Pair, Queue
from sidecar.cleaning.undo import Undone, undo_last

__all__ = [
    "ACTIONS",
    "Pair",
    "Queue",
    "Resolution",
    "ScanReport",
    "Undone",
    "approve_batch",
    "build_judge",
    "detect",
    "judge_status",
    "resolve",
    "scan",
    "undo_last",
]
