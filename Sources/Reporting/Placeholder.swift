// Reporting
