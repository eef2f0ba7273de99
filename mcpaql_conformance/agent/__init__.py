"""Agent runs: a real LLM (or a pinned scenario) drives the live server through its MCP tools,
and what it does becomes Semantic Evaluation evidence (conformance-testing §5)."""
