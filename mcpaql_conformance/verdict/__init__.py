"""Judging evidence: the result model, one check module per category, the runner, baselines,
suites and fixture verification."""
