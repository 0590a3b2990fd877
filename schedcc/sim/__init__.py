"""Simulators: in-order issue of a given instruction order."""

from .pipeline import InOrderResult, simulate_in_order

__all__ = ["InOrderResult", "simulate_in_order"]
