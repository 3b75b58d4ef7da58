"""What DriftLens tells while it works: progress events of an answer (`events`) and the JSON log lines of the
service and the app (`logs`)."""
