"""Three-tier conversation memory (ADR-0005 decision 4) kept in chat notes: log, window +
summary, recall."""

from sidecar.memory.conversation import ConversationMemory, MemoryLimits, restore_recall
from sidecar.memory.episodic import Episodic, memory_collection
from sidecar.memory.notes import ChatNotes, SyncReport, chats_folder
from sidecar.memory.store import MemoryStore, Turn, check_conversation, open_store
from sidecar.memory.tokens import count_tokens

__all__ = [
    "ChatNotes",
    "ConversationMemory",
    "Episodic",
    "MemoryLimits",
    "MemoryStore",
    "SyncReport",
    "Turn",
    "chats_folder",
    "check_conversation",
    "count_tokens",
    "memory_collection",
    "open_store",
    "restore_recall",
]
