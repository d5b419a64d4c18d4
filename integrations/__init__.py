"""The outside world behind small interfaces, each with a built-in offline implementation."""
