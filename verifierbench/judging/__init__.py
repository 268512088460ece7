"""Judging free of Inspect, as the `judge` command runs it: frozen verifiers on a suite's hidden cases (`judge`),
`--no-score` logs judged later (`judge_logs`), and the decisions files both write."""
