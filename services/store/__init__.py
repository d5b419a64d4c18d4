"""Storefronts: a claimed product's generated store. document.py (the store document),
versions.py (its numbered versions), builds.py and publish.py (the jobs), verify.py (the
check), render.py (its pages), state.py (what the API answers)."""
