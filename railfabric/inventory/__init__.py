"""The inventory stage: which files, read safely (files), loaded with their source map (load), checked against the
schema (schema_check) into the intent model (intent, intent_system, intent_types); the order-free input digest
(canonical)."""
