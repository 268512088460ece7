"""tau2-bench (retail, banking): state tasks on inspect_evals' tau2 environments, interaction records as candidates."""

from verifierbench.sources.base import Source

SOURCE = Source(
    name="tau2",
    select="verifierbench.sources.tau2.build:select_tasks",
    decide="verifierbench.sources.tau2.reference:decide",
    environment="verifierbench.sources.tau2.environment:environment_for",
    mutation_operators="verifierbench.screening.state_mutants:OPERATORS",
    audit_generators="verifierbench.audit.state:propose",
    preload=("inspect_ai.model", "inspect_ai.solver", "inspect_ai.tool", "inspect_ai.util", "inspect_evals.tau2.common.scorer",
             "inspect_evals.tau2.common.agents", "inspect_evals.tau2.utils", "inspect_evals.tau2.common.tools",
             "inspect_evals.tau2.retail.data_model", "inspect_evals.tau2.retail.RetailAgentTools",
             "inspect_evals.tau2.banking.BankingAgentTools", "inspect_evals.tau2.banking.BankingUserTools",
             "inspect_evals.tau2.banking.data_model", "inspect_evals.tau2.banking.environment"),
    warm_up="verifierbench.sources.tau2.reference:warm_up",
    gold_record="verifierbench.sources.tau2.potency:gold_record",
    replay_results="verifierbench.sources.tau2.potency:replay_results",
    shares="interaction",
    upstream="inspect-evals",
)
