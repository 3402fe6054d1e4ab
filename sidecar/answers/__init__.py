"""Grounded, cited answers over the vault (ADR-0005 decision 5)."""

from sidecar.answers.pipeline import AnswerLimits, answer, default_k

__all__ = ["AnswerLimits", "answer", "default_k"]
