"""The recommendation stage: one method per stakeholder from paired evidence, with its reasoning."""
