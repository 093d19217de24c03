"""The AI-usage signals and what they mean for each purpose. Pure."""
