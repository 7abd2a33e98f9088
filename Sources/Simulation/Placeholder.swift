// Simulation
