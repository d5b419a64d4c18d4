"""The domain: one module per area, plain functions, no Flask and no HTTP codes."""
