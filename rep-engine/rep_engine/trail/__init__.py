"""The audit trail's file: its lines, the hash chain across them and its snapshots (pure).
The words and records it holds are the parts' one contract, :mod:`rep_engine.records`."""
