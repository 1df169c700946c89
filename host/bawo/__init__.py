"""Bawo Board host tools."""
