"""Grounded, cited answers over the vault (ADR-0005 decision 5)."""

from sidecar.answers.pipeline import AnswerLimits, answer

__all__ = ["AnswerLimits", "answer"]
