// Chaos module
