"""Splitting note bodies into cited, model-sized chunks."""
