"""The audit trail's format: its records both ways, its file and its snapshots (pure;
the one contract of the parts)."""
