"""ACEBench: tool-call tasks judged by a port of ACEBench's checker."""

from verifierbench.sources.base import Source

SOURCE = Source(
    name="acebench",
    select="verifierbench.sources.acebench.build:select_tasks",
    decide="verifierbench.sources.toolcall.reference:decide",
    answer_key="verifierbench.sources.acebench.spec:spec_for_reference",
    check_calls="verifierbench.sources.acebench.reference:check_calls",
    expected_calls="verifierbench.sources.acebench.reference:expected_calls",
    mutation_operators="verifierbench.screening.mutants:OPERATORS",
    audit_generators="verifierbench.audit.toolcall:propose",
    shares="toolcall",
)
