// Upstream module
