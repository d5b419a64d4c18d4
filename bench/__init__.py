"""Benchmark harness: measurements, not tests (see bench/README.md)."""
