"""`sleuth mcp`: the library's search, symbols, handles and expansion as MCP tools."""
