"""The storefront: a claimed product's generated store (render.py turns its document into pages)."""
