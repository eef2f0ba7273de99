"""A small MCP-AQL server (a notes store) to try capture on, conformant unless a fault is asked for."""
