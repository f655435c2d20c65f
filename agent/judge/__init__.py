"""The judge: checklist first (embedded matcher or a vLLM-served model), scores bounded by it."""
