"""Back ends: text tables, explanations and JSON for schedules."""
