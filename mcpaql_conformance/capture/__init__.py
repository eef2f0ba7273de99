"""Live capture: probe a running MCP-AQL server over MCP and write an evidence bundle."""
