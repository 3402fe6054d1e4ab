"""Three-tier conversation memory (ADR-0005 decision 4): SQLite log, window + summary, recall."""

from sidecar.memory.conversation import (
    ConversationMemory,
    MemoryLimits,
    count_tokens,
    restore_recall,
)
from sidecar.memory.episodic import Episodic, memory_collection
from sidecar.memory.store import MemoryStore, Turn, check_conversation, open_store

__all__ = [
    "ConversationMemory",
    "Episodic",
    "MemoryLimits",
    "MemoryStore",
    "Turn",
    "check_conversation",
    "count_tokens",
    "memory_collection",
    "open_store",
    "restore_recall",
]
