"""tau2-bench (retail, banking): state tasks on inspect_evals' tau2 environments, interaction records as candidates."""

from verifierbench.sources.base import Source

SOURCE = Source(
    name="tau2",
    select="verifierbench.sources.tau2.build:select_tasks",
    decide="verifierbench.sources.tau2.reference:decide",
    environment="verifierbench.sources.tau2.environment:environment_for",
    mutation_operators="verifierbench.screening.state_mutants:OPERATORS",
    audit_generators="verifierbench.audit.state:propose",
    shares="interaction",
    upstream="inspect-evals",
)
