"""Reader text and units (GB = 10^9 B, GiB = 2^30 B), the typed-number parser, the Chinese-message error
and file locations. Knows no number format and no model."""
