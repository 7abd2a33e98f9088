// Metrics
