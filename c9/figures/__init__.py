"""Build only: the figures the lessons quote (``figures() -> list[dict]`` per module, collected by
build_numbers.py). Never shipped to the page."""
