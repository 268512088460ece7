"""AgentDojo: state tasks and injection pairs on AgentDojo's suites, interaction records as candidates."""

from verifierbench.sources.base import Source

SOURCE = Source(
    name="agentdojo",
    select="verifierbench.sources.agentdojo.build:select_tasks",
    decide="verifierbench.sources.agentdojo.reference:decide",
    environment="verifierbench.sources.agentdojo.environment:environment_for",
    mutation_operators="verifierbench.sources.agentdojo.mutants:OPERATORS",
    audit_generators="verifierbench.audit.state:propose",
    preload=("yaml", "agentdojo.task_suite.load_suites", "agentdojo.agent_pipeline.tool_execution",
             "agentdojo.functions_runtime", "agentdojo.default_suites.v1.tools"),
    warm_up="verifierbench.sources.agentdojo.reference:warm_up",
    gold_record="verifierbench.sources.agentdojo.potency:gold_record",
    replay_results="verifierbench.sources.agentdojo.potency:replay_results",
    shares="interaction",
    upstream="agentdojo",
)
