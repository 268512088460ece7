"""BFCL (Berkeley Function-Calling Leaderboard): tool-call tasks judged by BFCL's own AST checker."""

from verifierbench.sources.base import Source

SOURCE = Source(
    name="bfcl",
    select="verifierbench.sources.bfcl.build:select_tasks",
    decide="verifierbench.sources.toolcall.reference:decide",
    answer_key="verifierbench.sources.bfcl.spec:spec_for_reference",
    check_calls="verifierbench.sources.bfcl.reference:check_calls",
    expected_calls="verifierbench.sources.bfcl.reference:expected_calls",
    mutation_operators="verifierbench.screening.mutants:OPERATORS",
    audit_generators="verifierbench.audit.toolcall:propose",
    shares="toolcall",
    upstream="bfcl-eval",
)
