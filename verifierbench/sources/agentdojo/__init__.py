"""AgentDojo (`agentdojo` package, pinned suite version): user tasks and user-task x injection-task pairs."""
