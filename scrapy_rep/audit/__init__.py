"""The audit trail's file: its records, and the tools that read, verify and
report on it. Pure."""
